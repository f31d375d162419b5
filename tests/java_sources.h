/* SPDX-License-Identifier: GPL-2.0-only */
/* java_sources.h: the Java programs the tests of JVMs run, and where the JDK is
 * (Debian's OpenJDK 17, which make deps installs). */
#ifndef RINGTRACE_TEST_JAVA_SOURCES_H
#define RINGTRACE_TEST_JAVA_SOURCES_H

#define JAVA_HOME "/usr/lib/jvm/java-17-openjdk-amd64"

/* Spin: outer() -> middle() -> inner(), spinning in inner() for ever. */
static const char spin_java[] = "public class Spin {\n"
				"  static volatile long n;\n"
				"  static void inner() { while (true) n++; }\n"
				"  static void middle() { inner(); }\n"
				"  static void outer() { middle(); }\n"
				"  public static void main(String[] a) { outer(); }\n"
				"}\n";

#endif
