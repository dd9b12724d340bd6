use strict;
use warnings;
use Test::More tests => 4;
use lib q(lib);
use Calc;

is(Calc::add(2, 2), 4, q(adds));
is(Calc::add(-1, -2), -3, q(adds negatives));
is(Calc::sub(5, 3), 2, q(subtracts));
is(Calc::sub(0, 0), 0, q(subtracts zero));
