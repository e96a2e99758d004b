// @ts-check
// The checks an MCP form's values get in the daemon, for the page: the same module, built as a file
// of its own (scripts/build-web.mjs) that the page loads only once a form is on screen, since its
// pattern engine (RE2, linear in the text) would more than double every first load.
export { checkFormContent } from '../elicitation-form.js';
