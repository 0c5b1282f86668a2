/*
 * Test-only stand-in for Jailhouse's include/jailhouse/types.h: just the integer types the
 * rendered cell configurations use (see cell-config.h beside this file).
 */
#ifndef RTDROID_TEST_JAILHOUSE_TYPES_H
#define RTDROID_TEST_JAILHOUSE_TYPES_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef __u8 u8;
typedef __u64 u64;

#endif
