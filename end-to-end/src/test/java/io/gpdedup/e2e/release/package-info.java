/** The release: the product and bench kit tarballs unpacked and run on their own runtimes, the .deb installed and removed, the .rpm read. */
package io.gpdedup.e2e.release;
