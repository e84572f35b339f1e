/* Included by part_b.c only: touching it must rebuild part_b alone. */
#define B_OFFSET 0.25
