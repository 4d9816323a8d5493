// Encodes a picture as PNG off the main thread: the page hands over an ImageBitmap (moved, not
// copied), this draws it on an OffscreenCanvas and answers with the PNG blob. A large page
// view's picture took over 100 ms of the main thread to encode there.
const scope = self as unknown as { onmessage: ((e: MessageEvent<ImageBitmap>) => void) | null; postMessage(m: Blob | { error: string }): void };

scope.onmessage = (e) => {
  const bmp = e.data;
  const c = new OffscreenCanvas(bmp.width, bmp.height);
  const ctx = c.getContext('2d');
  if (!ctx) {
    scope.postMessage({ error: 'this browser gives no 2D canvas in a worker' });
    return;
  }
  ctx.drawImage(bmp, 0, 0);
  bmp.close();
  c.convertToBlob({ type: 'image/png' }).then(
    (b) => scope.postMessage(b),
    (err: unknown) => scope.postMessage({ error: err instanceof Error ? err.message : String(err) }),
  );
};
