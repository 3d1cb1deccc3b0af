// Keeps the checkout page's status live: polls GET /checkout/{token}/status every 2 s and reloads
// the page when the status changes (a paid payment's page then becomes its receipt). No framework,
// no inline script: the page's Content-Security-Policy allows only this file.
(function () {
  "use strict";
  var url = document.body.getAttribute("data-status-url");
  var status = document.getElementById("status");
  if (!url || !status) {
    return;
  }
  var shown = status.getAttribute("data-status");
  var timer = null;

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (body) {
        if (body && body.status && body.status !== shown) {
          clearInterval(timer);
          window.location.reload();
        }
      })
      .catch(function () {
        // A dropped connection on a phone is normal; the next poll tries again.
      });
  }

  timer = setInterval(poll, 2000);
})();
