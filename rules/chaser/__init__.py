"""CHaser (U-16 旭川プロコン) as the official server runs it: the map, the actions, the end of a game.

``log`` (reading the server's Stable Log and .map files), ``engine`` (the board), ``replay``
(the fold, its findings and the end explained), ``checks`` (the catalog). See docs/rules/chaser.md.
"""
