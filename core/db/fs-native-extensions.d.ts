// The part of fs-native-extensions (no types of its own) that core/db/data-dir-lock.ts uses.
declare module 'fs-native-extensions' {
  interface FsNativeExtensions {
    /** An exclusive lock on the whole file (fcntl F_OFD_SETLK on Linux); false when another holds it. */
    tryLock(fd: number, opts?: { shared?: boolean }): boolean;
    unlock(fd: number): void;
  }
  const fsx: FsNativeExtensions;
  export default fsx;
}
