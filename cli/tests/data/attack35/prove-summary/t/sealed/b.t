use strict; use warnings; use Test::More tests => 1;
use lib 'lib';
ok(1, 'trivial');
