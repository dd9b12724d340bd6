package Calc;
use strict;
# The stub: every function returns nothing.
sub add { return }
sub sub { return }
1;
