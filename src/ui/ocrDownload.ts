// What the first scanned page downloads (the recogniser and its language data, from the app's own origin), for the
// Library view's notice. The sizes are read from node_modules when the app is built (vite.config.ts).
declare const __OCR_DOWNLOAD__: { recogniser: number; eng: number; chi_sim: number };

export const OCR_DOWNLOAD = __OCR_DOWNLOAD__;
