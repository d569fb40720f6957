/** Vite's `?inline` (a base64 data URL) and `?raw` (the text) imports, which the edge suite uses to carry the media fixtures into workerd. */
declare module '*?inline' {
  const dataUrl: string;
  export default dataUrl;
}
declare module '*?raw' {
  const text: string;
  export default text;
}
