/* Input of driver-clang-modes.c: calls the function answer.S defines. */
#include <stdio.h>

int asm_answer(void);

int main(void) {
  printf("asm_answer=%d\n", asm_answer());
  return asm_answer() != 42;
}
