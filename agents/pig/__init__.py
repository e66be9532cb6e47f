"""Players of Pig: the exact optimum (two players) and the hold-at bots."""
