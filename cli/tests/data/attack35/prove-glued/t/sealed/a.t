use strict; use warnings;
use lib 'impl';
use Test::More tests => 4;
use Impl;
ok(Impl::add(1,2) == 3);
ok(Impl::mul(2,3) == 6);
ok(Impl::mul(1,1) == 1);
is(Impl::add(2,2), 4, 'add two');
