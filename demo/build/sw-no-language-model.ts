/**
 * The service worker's stand-in for wink's English model. With the model inlined, sw.js grows to
 * about 10 MB and Chromium refuses to register it ("Failed to access storage"), which would cost
 * the demo its offline mode. The service worker hosts the engine only while no tab has the memory
 * open; a conversation it extracts then fails to load the language model, and the segment writer
 * keeps it as a plain transcript episode with an `extract.rules_failed` notice: nothing is lost,
 * and the tab's worker (which has the model) extracts everything written while it is open.
 */
throw new Error('the English language model is not part of the service worker bundle');
