"""``kifu play``'s referee: plays UNO matches under any profile between bots and writes the dealer's log."""
