// The program's own header, included by main.cpp.
#define BODIES 4
static const float SCALE = 2.0f;
