// Keeps a page's status live: polls the body's data-status-url every 2 s and reloads the page when
// what it answers changes: the checkout page compares "status" with #status's data-status (a paid
// payment's page then becomes its receipt); the invoice page compares "state" (status and amount
// paid) with the body's data-poll-state. Stops after 30 minutes, when every checkout has expired.
// No framework, no inline script: the page's Content-Security-Policy allows only this file.
(function () {
  "use strict";
  var url = document.body.getAttribute("data-status-url");
  var status = document.getElementById("status");
  var shown = document.body.getAttribute("data-poll-state");
  var field = "state";
  if (shown === null && status) {
    shown = status.getAttribute("data-status");
    field = "status";
  }
  if (!url || shown === null) {
    return;
  }
  var polls = 0;
  var timer = null;

  function poll() {
    if (++polls > 900) {
      clearInterval(timer);
      return;
    }
    fetch(url, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (body) {
        if (body && body[field] && body[field] !== shown) {
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
