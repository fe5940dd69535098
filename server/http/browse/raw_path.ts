/** Which repository-browser paths are raw downloads (the hosting app leaves them uncompressed). */

/** Whether `path` is a raw download (never compressed: it may be large, and is streamed). */
export function isRawPath(path: string): boolean {
  return /^\/[^/]+\/[^/]+\/raw\//.test(path);
}
