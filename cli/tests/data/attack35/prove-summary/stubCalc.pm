package Calc; sub add { return 0 } 1;
