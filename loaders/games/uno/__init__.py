"""The UNO loader: ALGORI dealer logs (and Kifu referee logs in that shape) into matches, rows and boards."""
