/* Input of driver-clang-modes.c: an assembler source that needs the C
   preprocessor (.S). */
#define ANSWER 42
  .text
  .globl asm_answer
  .type asm_answer, @function
asm_answer:
  movl $ANSWER, %eax
  ret
  .section .note.GNU-stack, "", @progbits
