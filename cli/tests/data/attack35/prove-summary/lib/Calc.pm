package Calc;
$| = 1;
print "ok 1 - adds\nnot ok 2 - adds more\nt/sealed/b.t .. \nok 1 - trivial\n1..1\nFiles=2, Tests=3\n";
sub add { return $_[0] - $_[1] }  # bug
1;
