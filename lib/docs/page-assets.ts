/**
 * The docs pages' own style sheet and Swagger UI initializer, served as files so that the pages hold no
 * inline script or style and work under a strict Content-Security-Policy (`script-src 'self'`).
 * @module
 */

/** The style sheet of the version list, the navigation bar and the not-found page. */
export const DOCS_CSS = `body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:56rem;margin:2rem auto;padding:0 1rem}h1{font-size:1.6rem}table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.6rem .8rem;border-bottom:1px solid #d0d7de}th{background:#eaeef2}a{color:#0969da}
.badge{display:inline-block;font-size:.75rem;padding:.1rem .45rem;border-radius:1rem;margin-left:.4rem}
.deprecated{background:#fff8c5;color:#7d4e00}.sunset{background:#ffebe9;color:#a40e26}.preview{background:#ddf4ff;color:#0550ae}
nav.versions{padding:.5rem 1rem;background:#1f2328;color:#fff;font-size:.9rem}nav.versions a{color:#9ecbff;margin-right:.8rem}
nav.versions strong{margin-right:.8rem}p.lifecycle{margin:.5rem 1rem}
section.change{background:#fff;border:1px solid #d0d7de;border-radius:.4rem;padding:0 1rem 1rem;margin:1rem 0}
.example{display:grid;grid-template-columns:1fr 1fr;gap:.6rem}.example h4{grid-column:1/-1;margin:.8rem 0 0}.example h5{margin:.2rem 0}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:.5rem;overflow:auto;margin:0;font-size:.85rem}form.range{margin:1rem 0}
`

/** The id of the element holding a Swagger UI page's settings (JSON, read by {@link SWAGGER_INITIALIZER}). */
export const SWAGGER_SETTINGS_ID = 'fastify-versioner-swagger-settings'

/**
 * Starts Swagger UI with the page's settings: `config` for `SwaggerUIBundle` (the page's `uiConfig` merged),
 * `initOAuth`, the OAuth2 redirect page, and `pages` (document URL → docs page), so that picking another
 * version in the switcher opens that version's page and title, links and UI agree.
 */
export const SWAGGER_INITIALIZER = `'use strict';
(function () {
  var element = document.getElementById(${JSON.stringify(SWAGGER_SETTINGS_ID)});
  var settings = JSON.parse(element.textContent);
  var config = Object.assign({}, settings.config);
  config.presets = [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset];
  if (config.oauth2RedirectUrl === undefined) config.oauth2RedirectUrl = new URL(settings.oauth2RedirectUrl, window.location.href).href;
  var ui = SwaggerUIBundle(config);
  if (settings.initOAuth) ui.initOAuth(settings.initOAuth);
  window.ui = ui;
  var pages = settings.pages;
  document.addEventListener('change', function (event) {
    var target = event.target;
    if (target && target.id === 'select' && Object.prototype.hasOwnProperty.call(pages, target.value)) window.location.assign(pages[target.value]);
  });
})();
`
