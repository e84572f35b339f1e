/* Found through -I (main.c) or relative to the source (scale.c). */
#ifndef VALUE
#error "VALUE must be defined with -D"
#endif
#define SCALE 3.0
