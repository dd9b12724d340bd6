package Calc;
use strict;
sub add { $_[0] + $_[1] }
sub sub { $_[1] - $_[0] }
1;
