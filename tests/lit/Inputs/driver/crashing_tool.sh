#!/bin/sh
# Input of driver-signals.c: stands in for hce-translate and dies of SIGSEGV.
kill -SEGV $$
