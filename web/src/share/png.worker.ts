// Encodes a picture as PNG off the main thread: the page hands over an ImageBitmap (moved, not
// copied), this draws it on an OffscreenCanvas and answers with the PNG blob. A large page
// view's picture took over 100 ms of the main thread to encode there.
import { serve } from '../worker/bridge';

export interface EncodePng {
  type: 'encode';
  job: number;
  picture: ImageBitmap;
}

export type FromPng = { type: 'png'; job: number; png: Blob } | { type: 'error'; job: number; message: string };

serve<EncodePng, FromPng>(
  async ({ job, picture }, { post }) => {
    const c = new OffscreenCanvas(picture.width, picture.height);
    const ctx = c.getContext('2d');
    if (!ctx) throw new Error('this browser gives no 2D canvas in a worker');
    ctx.drawImage(picture, 0, 0);
    picture.close();
    post({ type: 'png', job, png: await c.convertToBlob({ type: 'image/png' }) });
  },
  (job, message) => ({ type: 'error', job, message }),
);
