// A header of the program's own, included in angle brackets as the original's programs did
// (their Makefiles passed -I. to the compiler).
#ifndef ORIGINAL_HOST_H
#define ORIGINAL_HOST_H
#define ELEMENTS 6
#endif
