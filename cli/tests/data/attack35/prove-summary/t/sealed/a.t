use strict; use warnings; use Test::More tests => 2;
use lib 'lib'; use Calc;
is(Calc::add(1,2), 3, 'adds');
is(Calc::add(2,2), 4, 'adds more');
