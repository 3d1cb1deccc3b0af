/*
 * The embeddable merchant panel: <payments-panel token="…" api-base="…"></payments-panel>.
 * Served by the gateway at /embed/v1/panel.js; docs/embedding.md says how to mount it.
 *
 * One framework-free file. Everything it shows is built with createElement and text nodes: no
 * string is ever parsed as markup or run as code, and no handler is inline, so a description like
 * <img src=x onerror=…> stays text. Its styles
 * live in its shadow root (a constructed stylesheet, which a host page's CSP does not need to allow;
 * a <style> element only where a browser lacks constructed stylesheets).
 *
 * It reads only the read-only /embed/v1 API with the token as bearer: /session first, then the tabs
 * the token allows. A 401 from any call is the expired state and the bubbling, composed DOM event
 * "payments-panel:token-expired"; a new token attribute starts over on the tab that was open.
 *
 * Stable hooks for tests and host pages: [data-tab], [data-list], [data-id], [data-action],
 * [data-state] and [data-event-type].
 */
(function () {
  "use strict";

  var TAG = "payments-panel";
  var EXPIRED_EVENT = "payments-panel:token-expired";
  var PAGE_SIZE = 25;
  var TIMEOUT_MS = 20000;
  var ZONE = "Asia/Manila";

  if (!window.customElements || window.customElements.get(TAG)) {
    return; // included twice, or a browser without custom elements
  }

  // The origin this script came from is the API's default origin; document.currentScript is set
  // only while the script first runs.
  var SCRIPT_ORIGIN = (function () {
    var script = document.currentScript;
    try {
      return script && script.src ? new URL(script.src, document.baseURI).origin : "";
    } catch (e) {
      return "";
    }
  })();

  var TAB_ORDER = ["payments", "payouts", "balance", "invoices", "customers", "events"];
  var TAB_LABELS = {
    payments: "Payments",
    payouts: "Payouts",
    balance: "Balance",
    invoices: "Invoices",
    customers: "Customers",
    events: "Events"
  };
  var EMPTY = {
    payments: "No payments yet.",
    payouts: "No payouts yet.",
    invoices: "No invoices yet.",
    customers: "No customers yet.",
    events: "No events yet."
  };
  var METHODS = {
    card: "Card",
    rail1_qr: "QR Ph",
    ewallet1: "E-wallet",
    ewallet1_qr: "E-wallet QR",
    bank_transfer: "Bank transfer",
    bank_transfer_nrt: "Bank transfer (batch)"
  };
  var STATUS_LABELS = {
    pending: "Pending",
    processing: "Processing",
    succeeded: "Succeeded",
    failed: "Failed",
    expired: "Expired",
    refunded: "Refunded",
    draft: "Draft",
    sent: "Open",
    partial: "Partly paid",
    paid: "Paid",
    void: "Void"
  };
  var EVENT_LABELS = {
    "payment.processing": "Customer paid, funds settling",
    "payment.succeeded": "Payment succeeded",
    "payment.failed": "Payment failed",
    "payment.expired": "Checkout expired unpaid",
    "refund.created": "Refund requested",
    "refund.succeeded": "Refund completed",
    "refund.failed": "Refund failed",
    "payout.succeeded": "Payout succeeded",
    "payout.failed": "Payout failed, amount returned to balance",
    "invoice.balance_due": "Invoice balance due",
    "invoice.forfeited": "Invoice forfeited",
    "transfer.sent": "Transfer sent",
    "transfer.received": "Transfer received",
    "claim.expired": "Claim expired",
    "product.stock_adjusted": "Stock adjusted"
  };

  // ------------------------------------------------------------------ formatting

  var moneyFormats = {};
  function money(amount, currency) {
    var code = typeof currency === "string" && currency ? currency.toUpperCase() : "PHP";
    var number = typeof amount === "number" ? amount : Number(amount);
    if (amount === null || amount === undefined || !isFinite(number)) {
      return "—";
    }
    try {
      if (!moneyFormats[code]) {
        moneyFormats[code] = new Intl.NumberFormat("en-PH", { style: "currency", currency: code });
      }
      return moneyFormats[code].format(number);
    } catch (e) {
      return code + " " + number.toFixed(2); // a code Intl does not know
    }
  }

  var dateTime = new Intl.DateTimeFormat("en-PH", {
    timeZone: ZONE,
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
    hour12: true
  });
  var dateOnly = new Intl.DateTimeFormat("en-PH", {
    timeZone: ZONE,
    day: "numeric",
    month: "short",
    year: "numeric"
  });
  var dayOnly = new Intl.DateTimeFormat("en-PH", {
    timeZone: "UTC",
    day: "numeric",
    month: "short",
    year: "numeric"
  });

  function partsOf(format, date) {
    var parts = {};
    format.formatToParts(date).forEach(function (part) {
      parts[part.type] = part.value;
    });
    return parts;
  }

  /**
   * Unix seconds (SPEC timestamps) as the hosted pages write them, in Manila: "25 Nov 2026, 9:35
   * PM"; without the year when it is this year's ("25 Nov, 9:35 PM").
   */
  function when(seconds) {
    if (typeof seconds !== "number" || !isFinite(seconds)) {
      return "";
    }
    var p = partsOf(dateTime, new Date(seconds * 1000));
    var thisYear = partsOf(dateTime, new Date()).year === p.year;
    return p.day + "\u00a0" + p.month + (thisYear ? "" : "\u00a0" + p.year) + ", " + p.hour + ":" +
      p.minute + "\u00a0" + String(p.dayPeriod || "").toUpperCase();
  }

  function dayMonthYear(format, date) {
    var p = partsOf(format, date);
    return p.day + "\u00a0" + p.month + "\u00a0" + p.year;
  }

  /** Unix seconds as the day in Manila, "25 Nov 2026". */
  function dateOf(seconds) {
    return typeof seconds === "number" && isFinite(seconds)
      ? dayMonthYear(dateOnly, new Date(seconds * 1000))
      : "";
  }

  /** A YYYY-MM-DD day (an invoice's due_date) as "24 Dec 2026", with no time-zone shift. */
  function day(text) {
    var parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(typeof text === "string" ? text : "");
    if (!parts) {
      return "";
    }
    return dayMonthYear(dayOnly, new Date(Date.UTC(+parts[1], +parts[2] - 1, +parts[3])));
  }

  /** A method's name for people ("QR Ph" for rail1_qr), kept on one line. */
  function methodLabel(method) {
    return (METHODS[method] || (typeof method === "string" ? method : "")).replace(/ /g, "\u00a0");
  }

  function humanize(code) {
    var text = String(code || "").replace(/[._]/g, " ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function statusLabel(status) {
    return STATUS_LABELS[status] || humanize(status);
  }

  /** An absolute http(s) address, or "" (a URI may carry another scheme: never a link). */
  function webAddress(value) {
    return typeof value === "string" && /^https?:\/\/[^\s]+$/i.test(value) ? value : "";
  }

  function str(value) {
    return typeof value === "string" ? value : "";
  }

  function joined(parts) {
    return parts.filter(Boolean).join(" · ");
  }

  // ------------------------------------------------------------------ building DOM

  /**
   * An element with attributes and children. Children are nodes or strings; strings become text
   * nodes, so data can never become markup.
   */
  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    var name;
    for (name in attributes || {}) {
      if (Object.prototype.hasOwnProperty.call(attributes, name) && attributes[name] !== null &&
          attributes[name] !== undefined && attributes[name] !== false) {
        node.setAttribute(name, attributes[name] === true ? "" : String(attributes[name]));
      }
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    if (children === null || children === undefined) {
      return node;
    }
    if (!Array.isArray(children)) {
      children = [children];
    }
    children.forEach(function (child) {
      if (child === null || child === undefined || child === false) {
        return;
      }
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  function badge(status) {
    var safe = String(status || "unknown").replace(/[^a-z0-9_-]/gi, "");
    return el("span", { class: "badge status-" + safe, "data-status": safe }, statusLabel(status));
  }

  // ------------------------------------------------------------------ styles

  var STYLES = [
    ":host { display: block; container-type: inline-size; color: #1f2933;",
    "  font: 15px/1.45 var(--payments-panel-font, system-ui, -apple-system, 'Segoe UI', Roboto,",
    "  'Helvetica Neue', Arial, sans-serif); --accent: var(--payments-panel-accent, #0b57a4); }",
    ":host([hidden]) { display: none; }",
    "*, *::before, *::after { box-sizing: border-box; }",
    ".panel { background: #fff; border: 1px solid #e4e7eb; overflow: hidden;",
    "  border-radius: var(--payments-panel-radius, 0.75rem); min-width: 0; }",
    ".head { display: flex; align-items: center; justify-content: space-between; gap: 0.75rem;",
    "  padding: 0.875rem 1rem 0.5rem; }",
    ".who { min-width: 0; }",
    ".eyebrow { color: #52606d; font-size: 0.75rem; font-weight: 600; text-transform: uppercase;",
    "  letter-spacing: 0.06em; }",
    ".merchant { font-size: 1.0625rem; font-weight: 650; overflow-wrap: anywhere; }",
    ".env { flex: none; font-size: 0.75rem; font-weight: 600; padding: 0.125rem 0.5rem;",
    "  border-radius: 999px; background: #fde68a; color: #3d2a00; }",
    ".detail:focus { outline: none; }",
    ".tabs { position: relative; display: flex; gap: 0.25rem; overflow-x: auto; scrollbar-width: none;",
    "  padding: 0 0.75rem; border-bottom: 1px solid #e4e7eb; }",
    ".tabs::-webkit-scrollbar { display: none; }",
    ".tabs.more-right { -webkit-mask-image: linear-gradient(to right, #000 80%, transparent);",
    "  mask-image: linear-gradient(to right, #000 80%, transparent); }",
    ".tabs.more-left { -webkit-mask-image: linear-gradient(to left, #000 80%, transparent);",
    "  mask-image: linear-gradient(to left, #000 80%, transparent); }",
    ".tabs.more-left.more-right { -webkit-mask-image: linear-gradient(to right, transparent,",
    "  #000 20%, #000 80%, transparent); mask-image: linear-gradient(to right, transparent,",
    "  #000 20%, #000 80%, transparent); }",
    ".tab { flex: none; font: inherit; font-weight: 600; font-size: 0.875rem; color: #52606d;",
    "  background: none; border: 0; border-bottom: 2px solid transparent; cursor: pointer;",
    "  padding: 0.625rem 0.5rem; margin-bottom: -1px; min-height: 2.75rem; }",
    ".tab:hover { color: #1f2933; }",
    ".tab[aria-selected='true'] { color: var(--accent); border-bottom-color: var(--accent); }",
    "button:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }",
    ".body { padding: 0.25rem 1rem 1rem; min-height: 10rem; }",
    ".rows { list-style: none; margin: 0; padding: 0; }",
    ".row { border-bottom: 1px solid #eef0f2; }",
    ".row:last-child { border-bottom: 0; }",
    ".line { display: grid; grid-template-columns: minmax(0, 1fr) auto; column-gap: 0.75rem;",
    "  row-gap: 0.125rem; align-items: center; padding: 0.75rem 0; width: 100%; text-align: left;",
    "  font: inherit; color: inherit; background: none; border: 0; }",
    "button.line { cursor: pointer; border-radius: 0.375rem; }",
    "button.line, a.line { cursor: pointer; border-radius: 0.375rem; text-decoration: none; }",
    "button.line:hover .primary, a.line:hover .primary { color: var(--accent); }",
    ".primary { font-weight: 600; overflow-wrap: anywhere; min-width: 0; display: -webkit-box;",
    "  -webkit-box-orient: vertical; -webkit-line-clamp: 2; overflow: hidden; }",
    ".amount { font-weight: 650; text-align: right; white-space: nowrap;",
    "  font-variant-numeric: tabular-nums; }",
    ".secondary { color: #52606d; font-size: 0.8125rem; overflow-wrap: anywhere; min-width: 0; }",
    ".ref { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis;",
    "  font-size: 0.75rem; }",
    ".aside { justify-self: end; min-width: 0; max-width: 100%; overflow: hidden; }",
    ".mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;",
    "  font-size: 0.8125rem; }",
    ".badge { display: inline-block; font-size: 0.75rem; font-weight: 600; line-height: 1.4;",
    "  padding: 0.0625rem 0.5rem; border-radius: 999px; background: #eef2f7; color: #243b53;",
    "  white-space: nowrap; }",
    ".status-pending, .status-partial { background: #fef3c7; color: #713f12; }",
    ".status-processing, .status-sent { background: #e6f0fb; color: #0b3d75; }",
    ".status-succeeded, .status-paid { background: #e3f4ea; color: #14532d; }",
    ".status-failed { background: #fdecec; color: #8a1c1c; }",
    ".status-expired, .status-void, .status-draft { background: #eef0f2; color: #3e4c59; }",
    ".status-refunded { background: #f1ecfb; color: #4c1d95; }",
    ".more { padding-top: 0.75rem; }",
    ".button { display: block; width: 100%; min-height: 2.75rem; padding: 0.625rem 1rem;",
    "  border-radius: 0.5rem; border: 1px solid #9aa5b1; background: #fff; color: #1f2933;",
    "  font: inherit; font-weight: 600; cursor: pointer; }",
    ".button:hover { background: #f5f7fa; }",
    ".button[disabled] { color: #7b8794; cursor: progress; }",
    ".button-primary { background: var(--accent); border-color: var(--accent); color: #fff; }",
    ".button-primary:hover { background: var(--accent); filter: brightness(0.92); }",
    ".note { color: #52606d; padding: 2rem 0.5rem; text-align: center; }",
    ".loading { color: #52606d; padding: 2rem 0.5rem; text-align: center; }",
    ".loading::before { content: ''; display: block; width: 1.5rem; height: 1.5rem;",
    "  margin: 0 auto 0.5rem; border-radius: 50%; border: 3px solid #e4e7eb;",
    "  border-top-color: var(--accent); animation: spin 0.9s linear infinite; }",
    "@keyframes spin { to { transform: rotate(360deg); } }",
    "@media (prefers-reduced-motion: reduce) { .loading::before { animation: none; } }",
    ".state { text-align: center; padding: 2rem 1rem 1.5rem; }",
    ".state h2 { font-size: 1.0625rem; margin: 0.75rem 0 0.375rem; }",
    ".state p { margin: 0 0 1rem; color: #3e4c59; }",
    ".state .button { max-width: 16rem; margin: 0 auto; }",
    ".icon { width: 2.75rem; height: 2.75rem; margin: 0 auto; border-radius: 50%;",
    "  display: flex; align-items: center; justify-content: center; font-weight: 700;",
    "  font-size: 1.25rem; background: #eef2f7; color: #243b53; }",
    ".state-expired .icon { background: #fef3c7; color: #713f12; }",
    ".state-error .icon { background: #fdecec; color: #b42318; }",
    ".balances { display: grid; gap: 0.75rem; padding: 0.75rem 0; }",
    ".balance { border: 1px solid #e4e7eb; border-radius: 0.625rem; padding: 0.875rem 1rem; }",
    ".balance .label { color: #52606d; font-size: 0.8125rem; }",
    ".balance .big { font-size: 1.75rem; font-weight: 700; letter-spacing: -0.01em;",
    "  font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }",
    ".back { font: inherit; font-weight: 600; font-size: 0.875rem; color: var(--accent);",
    "  background: none; border: 0; padding: 0.625rem 0; cursor: pointer; min-height: 2.75rem; }",
    ".detail-head { display: flex; align-items: center; justify-content: space-between;",
    "  gap: 0.75rem; padding: 0.25rem 0 0.75rem; }",
    ".detail-amount { font-size: 1.75rem; font-weight: 700; letter-spacing: -0.01em;",
    "  font-variant-numeric: tabular-nums; }",
    ".facts { margin: 0; border-top: 1px solid #eef0f2; }",
    ".facts div { display: flex; justify-content: space-between; gap: 1rem; padding: 0.5rem 0;",
    "  border-bottom: 1px solid #eef0f2; }",
    ".facts dt { color: #52606d; white-space: nowrap; }",
    ".facts dd { margin: 0; text-align: right; overflow-wrap: anywhere; min-width: 0; }",
    ".section { font-size: 0.9375rem; font-weight: 650; margin: 1.25rem 0 0.5rem; }",
    ".receipt { display: inline-block; margin-top: 0.75rem; color: var(--accent);",
    "  font-weight: 600; font-size: 0.875rem; }",
    ".timeline { list-style: none; margin: 0; padding: 0 0 0 0.25rem; }",
    ".timeline li { position: relative; padding: 0 0 0.875rem 1.25rem;",
    "  border-left: 2px solid #e4e7eb; margin-left: 0.3125rem; }",
    ".timeline li:last-child { border-left-color: transparent; padding-bottom: 0; }",
    ".timeline li::before { content: ''; position: absolute; left: -0.4375rem; top: 0.25rem;",
    "  width: 0.75rem; height: 0.75rem; border-radius: 50%; background: #9aa5b1;",
    "  box-shadow: 0 0 0 3px #fff; }",
    ".timeline .good::before { background: #17703f; }",
    ".timeline .bad::before { background: #b42318; }",
    ".timeline .busy::before { background: #0b57a4; }",
    ".timeline .what { font-weight: 600; }",
    ".timeline .when { color: #52606d; font-size: 0.8125rem; }",
    ".error-line { color: #8a1c1c; font-size: 0.875rem; padding: 0.5rem 0; }",
    "@container (min-width: 36rem) {",
    "  .head { padding: 1rem 1.25rem 0.5rem; }",
    "  .tabs { padding: 0 1rem; }",
    "  .body { padding: 0.25rem 1.25rem 1.25rem; }",
    "  .line { grid-template-columns: minmax(0, 1.4fr) minmax(0, 1.6fr) 7.5rem 8.5rem;",
    "    grid-template-areas: 'primary secondary aside amount'; }",
    "  .line .primary { grid-area: primary; }",
    "  .line .secondary { grid-area: secondary; }",
    "  .line .aside { grid-area: aside; justify-self: start; }",
    "  .line .amount { grid-area: amount; }",
    "  .balances { grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); }",
    "}",
    "@container (min-width: 48rem) {",
    "  .detail-grid { display: grid; grid-template-columns: minmax(0, 1.25fr) minmax(0, 1fr);",
    "    column-gap: 2.5rem; align-items: start; }",
    "  .detail-timeline .section { margin-top: 0.625rem; }",
    "}"
  ].join("\n");

  var sharedSheet = null;
  function adoptStyles(root) {
    if (root.adoptedStyleSheets !== undefined && typeof CSSStyleSheet === "function") {
      try {
        if (!sharedSheet) {
          sharedSheet = new CSSStyleSheet();
          sharedSheet.replaceSync(STYLES);
        }
        root.adoptedStyleSheets = [sharedSheet];
        return;
      } catch (e) {
        // fall through to a <style> element
      }
    }
    root.appendChild(el("style", null, STYLES));
  }

  // ------------------------------------------------------------------ the API

  /** What went wrong with a call, for the state shown in its place. */
  function Failure(kind, status, code, message) {
    this.kind = kind; // expired | forbidden | not_found | rate_limited | server | network | other
    this.status = status;
    this.code = code;
    this.message = message;
  }

  function failureOf(status, body) {
    var error = body && body.error ? body.error : {};
    var code = str(error.code);
    var message = str(error.message);
    if (status === 401) {
      return new Failure("expired", status, code || "invalid_token", message);
    }
    if (status === 403) {
      return new Failure("forbidden", status, code, message);
    }
    if (status === 404) {
      return new Failure("not_found", status, code, message);
    }
    if (status === 429) {
      return new Failure("rate_limited", status, code, message);
    }
    if (status >= 500) {
      return new Failure("server", status, code, message);
    }
    return new Failure("other", status, code, message);
  }

  // ------------------------------------------------------------------ the element

  class PaymentsPanel extends HTMLElement {
    static get observedAttributes() {
      return ["token", "api-base"];
    }

    constructor() {
      super();
      this._shadow = this.attachShadow({ mode: "open" });
      adoptStyles(this._shadow);
      this._panel = el("div", { class: "panel", part: "panel", "data-state": "idle" });
      this._shadow.appendChild(this._panel);
      this._generation = 0;
      this._inflight = [];
      this._session = null;
      this._tab = null;
      this._views = {};
      this._scheduled = false;
    }

    /** The token, also as a property: setting it is the same as setting the attribute. */
    get token() {
      return this.getAttribute("token") || "";
    }

    set token(value) {
      this.setAttribute("token", value === null || value === undefined ? "" : String(value));
    }

    connectedCallback() {
      // A page may have set el.token before this script defined the element: that made an own
      // property hiding the accessor. Move its value to the attribute.
      if (Object.prototype.hasOwnProperty.call(this, "token")) {
        var value = this.token;
        delete this.token;
        this.token = value;
      }
      this._schedule();
    }

    disconnectedCallback() {
      this._generation++;
      this._abortAll();
    }

    attributeChangedCallback(name, previous, current) {
      if (previous !== current && this.isConnected) {
        this._schedule();
      }
    }

    // Both attributes may change in one task (a host page setting api-base and token): start once.
    _schedule() {
      if (this._scheduled) {
        return;
      }
      this._scheduled = true;
      var self = this;
      Promise.resolve().then(function () {
        self._scheduled = false;
        if (self.isConnected) {
          self._start();
        }
      });
    }

    _apiBase() {
      var base = (this.getAttribute("api-base") || SCRIPT_ORIGIN || "").replace(/\/+$/, "");
      return base;
    }

    _abortAll() {
      this._inflight.forEach(function (controller) {
        controller.abort();
      });
      this._inflight = [];
    }

    /**
     * GET {api-base}{path} with the token; resolves with the JSON body, rejects with a Failure.
     * A 401 also switches the whole panel to the expired state (once per token).
     */
    _get(path, generation) {
      var self = this;
      var controller = typeof AbortController === "function" ? new AbortController() : null;
      if (controller) {
        this._inflight.push(controller);
      }
      var timer = setTimeout(function () {
        if (controller) {
          controller.abort();
        }
      }, TIMEOUT_MS);
      var done = function () {
        clearTimeout(timer);
        self._inflight = self._inflight.filter(function (c) {
          return c !== controller;
        });
      };
      return fetch(this._apiBase() + path, {
        method: "GET",
        headers: { Authorization: "Bearer " + this.token, Accept: "application/json" },
        credentials: "omit",
        cache: "no-store",
        mode: "cors",
        signal: controller ? controller.signal : undefined
      })
        .then(
          function (response) {
            return response
              .json()
              .catch(function () {
                return null;
              })
              .then(function (body) {
                done();
                if (response.ok && body && typeof body === "object") {
                  return body;
                }
                throw response.ok
                  ? new Failure("server", response.status, "", "unreadable response")
                  : failureOf(response.status, body);
              });
          },
          function () {
            done();
            throw new Failure("network", 0, "", "");
          }
        )
        .catch(function (failure) {
          if (!(failure instanceof Failure)) {
            failure = new Failure("server", 0, "", String(failure));
          }
          if (failure.kind === "expired" && generation === self._generation) {
            self._expire(failure);
          }
          throw failure;
        });
    }

    _current(generation) {
      return generation === this._generation;
    }

    _setState(state) {
      this._panel.setAttribute("data-state", state);
    }

    _start() {
      this._generation++;
      this._abortAll();
      var generation = this._generation;
      this._views = {};
      clear(this._panel);
      if (!this.token) {
        this._setState("no-token");
        this._panel.appendChild(
          this._statePanel("no-token", "i", "Not signed in",
            "This panel needs a session token from the page that shows it.", null));
        return;
      }
      this._setState("loading");
      this._panel.appendChild(el("div", { class: "loading", role: "status" }, "Loading…"));
      var self = this;
      this._get("/embed/v1/session", generation).then(
        function (session) {
          if (self._current(generation)) {
            self._session = session;
            self._renderShell(generation);
          }
        },
        function (failure) {
          if (self._current(generation) && failure.kind !== "expired") {
            clear(self._panel);
            self._setState("error");
            self._panel.appendChild(
              self._failurePanel(failure, function () {
                self._start();
              }));
          }
        });
    }

    _tabs() {
      var allowed = this._session && Array.isArray(this._session.tabs) ? this._session.tabs : [];
      return TAB_ORDER.filter(function (tab) {
        return allowed.indexOf(tab) >= 0;
      });
    }

    _renderShell(generation) {
      var self = this;
      var session = this._session;
      var tabs = this._tabs();
      clear(this._panel);
      this._setState("ready");
      var merchant = session.merchant && session.merchant.name ? session.merchant.name : "";
      var customer = session.audience === "customer";
      this._panel.appendChild(
        el("header", { class: "head" }, [
          el("div", { class: "who" }, [
            el("div", { class: "eyebrow" }, customer ? "Your account with" : "Dashboard"),
            el("div", { class: "merchant" }, merchant)
          ]),
          session.environment === "test"
            ? el("span", { class: "env", title: "Test mode: no real money moves" }, "Test data")
            : null
        ]));
      if (tabs.length === 0) {
        this._panel.appendChild(el("p", { class: "note" }, "Nothing to show with this session."));
        return;
      }
      var bar = el("div", { class: "tabs", role: "tablist", "aria-label": "Sections" });
      this._body = el("div", { class: "body", role: "tabpanel" });
      tabs.forEach(function (tab) {
        var button = el("button",
          { type: "button", class: "tab", role: "tab", "data-tab": tab, "aria-selected": "false",
            tabindex: "-1" },
          TAB_LABELS[tab]);
        button.addEventListener("click", function () {
          self._select(tab, generation);
        });
        button.addEventListener("keydown", function (event) {
          var step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
          if (step) {
            var next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
            self._select(next, generation);
            var target = bar.querySelector("[data-tab='" + next + "']");
            if (target) {
              target.focus();
            }
            event.preventDefault();
          }
        });
        bar.appendChild(button);
      });
      this._bar = bar;
      this._panel.appendChild(bar);
      this._panel.appendChild(this._body);
      // On a phone the tabs scroll sideways; a fading edge says there are more.
      var edges = function () {
        var room = bar.scrollWidth - bar.clientWidth;
        bar.classList.toggle("more-left", bar.scrollLeft > 2);
        bar.classList.toggle("more-right", room - bar.scrollLeft > 2);
      };
      bar.addEventListener("scroll", edges, { passive: true });
      if (typeof ResizeObserver === "function") {
        new ResizeObserver(edges).observe(bar);
      }
      this._edges = edges;
      this._select(tabs.indexOf(this._tab) >= 0 ? this._tab : tabs[0], generation);
    }

    /** Scrolls the tab strip (not the page) so that the chosen tab shows whole. */
    _reveal(button) {
      var bar = this._bar;
      var left = button.offsetLeft; // the strip is positioned: its own offsetParent
      if (left < bar.scrollLeft) {
        bar.scrollLeft = Math.max(0, left - 24);
      } else if (left + button.offsetWidth > bar.scrollLeft + bar.clientWidth) {
        bar.scrollLeft = left + button.offsetWidth - bar.clientWidth + 24;
      }
    }

    _select(tab, generation) {
      if (!this._current(generation)) {
        return;
      }
      this._tab = tab;
      Array.prototype.forEach.call(this._bar.querySelectorAll("[data-tab]"), function (button) {
        var on = button.getAttribute("data-tab") === tab;
        button.setAttribute("aria-selected", on ? "true" : "false");
        button.setAttribute("tabindex", on ? "0" : "-1");
        if (on) {
          this._reveal(button);
        }
      }, this);
      if (this._edges) {
        this._edges();
      }
      this._body.setAttribute("aria-label", TAB_LABELS[tab]);
      clear(this._body);
      // A tab's list is fetched again each time it is chosen: it shows what is true now.
      var view = tab === "balance" ? this._balanceView(generation) : this._listView(tab, generation);
      this._views[tab] = view;
      this._body.appendChild(view);
    }

    // ---------------------------------------------------------------- lists

    _listView(tab, generation) {
      var self = this;
      var view = el("div", { class: "list-view" });
      var rows = el("ul", { class: "rows", "data-list": tab });
      var more = el("div", { class: "more" });
      var status = el("div", {});
      view.appendChild(rows);
      view.appendChild(status);
      view.appendChild(more);
      var last = null;
      var count = 0;
      // One button for the whole list, so that keyboard focus stays on it from page to page.
      var button = el("button", { type: "button", class: "button", "data-action": "load-more" },
        "Load more");
      button.addEventListener("click", function () {
        if (!button.disabled) {
          load();
        }
      });

      function load() {
        clear(status);
        if (count === 0) {
          status.appendChild(el("div", { class: "loading", role: "status" }, "Loading…"));
        } else {
          button.disabled = true;
          button.textContent = "Loading…";
          Array.prototype.forEach.call(more.querySelectorAll(".error-line"), function (line) {
            more.removeChild(line);
          });
        }
        var query = "?limit=" + PAGE_SIZE + (last ? "&starting_after=" + encodeURIComponent(last) : "");
        self._get("/embed/v1/" + tab + query, generation).then(
          function (page) {
            if (!self._current(generation)) {
              return;
            }
            clear(status);
            var items = Array.isArray(page.data) ? page.data : [];
            items.forEach(function (item) {
              rows.appendChild(self._row(tab, item, generation));
              if (item && typeof item.id === "string") {
                last = item.id;
              }
            });
            count += items.length;
            if (count === 0) {
              status.appendChild(el("p", { class: "note", "data-state": "empty" }, EMPTY[tab]));
            }
            button.disabled = false;
            button.textContent = "Load more";
            if (page.has_more === true && last) {
              if (!button.parentNode) {
                more.appendChild(button);
              }
            } else if (button.parentNode) {
              if (button === self._shadow.activeElement) {
                rows.lastChild.querySelector(".line").focus(); // not lost with the button
              }
              more.removeChild(button);
            }
          },
          function (failure) {
            if (!self._current(generation) || failure.kind === "expired") {
              return;
            }
            clear(status);
            button.disabled = false;
            button.textContent = "Load more";
            if (count === 0) {
              status.appendChild(self._failurePanel(failure, load));
            } else {
              if (button.parentNode) {
                more.removeChild(button);
              }
              more.appendChild(self._failureLine(failure, load));
            }
          });
      }

      load();
      return view;
    }

    _row(tab, item, generation) {
      var self = this;
      item = item && typeof item === "object" ? item : {};
      var parts = this._rowParts(tab, item);
      // A payment opens in the panel; an invoice opens its own page (its url) in a new tab.
      var link = webAddress(parts.href);
      var line = el(parts.open ? "button" : link ? "a" : "div", parts.open
        ? { type: "button", class: "line" }
        : link ? { class: "line", href: link, target: "_blank", rel: "noopener noreferrer" }
          : { class: "line" }, [
        el("span", { class: "primary" }, parts.primary),
        el("span", { class: "amount" }, parts.amount || ""),
        el("span", { class: "secondary" }, parts.secondary),
        el("span", { class: "aside" }, parts.aside || "")
      ]);
      if (parts.open) {
        line.addEventListener("click", function () {
          self._openPayment(item, generation);
        });
      }
      return el("li", { class: "row", "data-id": str(item.id) }, line);
    }

    _rowParts(tab, item) {
      var created = when(item.created);
      switch (tab) {
        case "payments":
          return {
            open: true,
            primary: str(item.description) || (item.customer && str(item.customer.name)) ||
              "Payment",
            amount: money(item.amount, item.currency),
            secondary: joined([created, methodLabel(item.method)]),
            aside: badge(item.status)
          };
        case "payouts":
          return {
            primary: str(item.description) || methodLabel(item.method) + " payout",
            amount: money(item.amount, item.currency),
            secondary: joined([created, methodLabel(item.method)]),
            aside: badge(item.status)
          };
        case "invoices": {
          var open = item.status === "sent" || item.status === "partial";
          var left = item.status === "partial" && typeof item.amount_remaining === "number"
            ? money(item.amount_remaining, item.currency) + "\u00a0left" : "";
          var due = open && item.due_date ? "Due\u00a0" + day(item.due_date) : "";
          return {
            href: item.status === "draft" ? "" : str(item.url),
            primary: str(item.number) || (item.status === "draft" ? "Draft invoice" : "Invoice"),
            amount: money(item.amount, item.currency),
            secondary: joined([str(item.description), left, due]) || created,
            aside: badge(item.status)
          };
        }
        case "customers":
          return {
            primary: str(item.name) || "Customer",
            amount: "",
            secondary: joined([str(item.email), str(item.phone),
              item.created ? "since\u00a0" + dateOf(item.created) : ""])
          };
        case "events": {
          var object = item.data && item.data.object && typeof item.data.object === "object"
            ? item.data.object : {};
          return {
            primary: EVENT_LABELS[item.type] || humanize(item.type),
            amount: typeof object.amount === "number" ? money(object.amount, object.currency) : "",
            // The resource's id on a line of its own, cut short rather than wrapped on a phone.
            secondary: [joined([created, str(item.type)]),
              object.id ? el("span", { class: "ref mono" }, str(object.id)) : null]
          };
        }
        default:
          return { primary: str(item.id), secondary: created };
      }
    }

    // ---------------------------------------------------------------- balance

    _balanceView(generation) {
      var self = this;
      var view = el("div", { class: "balance-view" });
      function load() {
        clear(view);
        view.appendChild(el("div", { class: "loading", role: "status" }, "Loading…"));
        self._get("/embed/v1/balance", generation).then(
          function (balance) {
            if (!self._current(generation)) {
              return;
            }
            clear(view);
            var grid = el("div", { class: "balances", "data-list": "balance" });
            var available = balance.available;
            var entries = [];
            if (available !== null && typeof available === "object") {
              Object.keys(available).sort().forEach(function (currency) {
                entries.push([currency, available[currency]]);
              });
            } else if (typeof available === "number") {
              entries.push([str(balance.currency) || "PHP", available]);
            }
            if (entries.length === 0) {
              entries.push(["PHP", 0]);
            }
            entries.forEach(function (entry) {
              grid.appendChild(
                el("div", { class: "balance", "data-currency": entry[0] }, [
                  el("div", { class: "label" }, "Available · " + entry[0]),
                  el("div", { class: "big" }, money(entry[1], entry[0]))
                ]));
            });
            view.appendChild(grid);
            view.appendChild(el("p", { class: "secondary" },
              "Funds from succeeded payments, less fees, refunds and payouts."));
          },
          function (failure) {
            if (self._current(generation) && failure.kind !== "expired") {
              clear(view);
              view.appendChild(self._failurePanel(failure, load));
            }
          });
      }
      load();
      return view;
    }

    // ---------------------------------------------------------------- a payment and its timeline

    _openPayment(payment, generation) {
      var self = this;
      var list = this._views.payments;
      var scroll = window.pageYOffset;
      var detail = el("div", { class: "detail", "data-detail": str(payment.id), tabindex: "-1",
        "aria-label": "Payment " + str(payment.id) });
      var back = el("button", { type: "button", class: "back", "data-action": "back" },
        "← All payments");
      back.addEventListener("click", function () {
        if (!self._current(generation)) {
          return;
        }
        clear(self._body);
        self._body.appendChild(list);
        window.scrollTo(0, scroll);
        var row = list.querySelector("[data-id='" + cssEscape(str(payment.id)) + "'] .line");
        if (row) {
          row.focus();
        }
      });
      var merchantView = this._session && this._session.audience === "merchant";
      var facts = el("dl", { class: "facts" });
      function fact(label, value, mono) {
        if (value) {
          facts.appendChild(el("div", {}, [
            el("dt", {}, label), el("dd", mono ? { class: "mono" } : {}, value)]));
        }
      }
      fact("Description", str(payment.description));
      fact("Method", methodLabel(payment.method));
      fact("Created", when(payment.created));
      if (payment.status === "succeeded" || payment.status === "refunded") {
        fact("Paid", when(payment.succeeded_at));
      }
      if (payment.failure && typeof payment.failure === "object") {
        fact("Reason", str(payment.failure.message) || humanize(payment.failure.code));
      }
      if (payment.customer && typeof payment.customer === "object") {
        fact("Customer", joined([str(payment.customer.name), str(payment.customer.email)]));
      }
      if (merchantView) {
        if (typeof payment.fee_amount === "number") {
          fact("Fee", money(payment.fee_amount, payment.currency));
        }
        if (typeof payment.net_amount === "number") {
          fact("Net", money(payment.net_amount, payment.currency));
        }
      }
      fact("Reference", str(payment.id), true);
      var timeline = el("ol", { class: "timeline", "data-timeline": str(payment.id) });
      var timelineStatus = el("div", {});
      var receipt = str(payment.receipt_url);
      append(detail, [
        back,
        el("div", { class: "detail-grid" }, [
          el("div", { class: "detail-facts" }, [
            el("div", { class: "detail-head" }, [
              el("div", { class: "detail-amount" }, money(payment.amount, payment.currency)),
              badge(payment.status)
            ]),
            facts,
            webAddress(receipt)
              ? el("a", { class: "receipt", href: receipt, target: "_blank",
                rel: "noopener noreferrer", "data-action": "receipt" }, "View receipt")
              : null
          ]),
          el("div", { class: "detail-timeline" }, [
            el("h3", { class: "section" }, "Timeline"),
            timeline,
            timelineStatus
          ])
        ])
      ]);
      clear(this._body);
      this._body.appendChild(detail);
      detail.focus({ preventScroll: true }); // keyboard and screen-reader users land on it

      function entry(type, label, time, tone) {
        return el("li", { class: tone || "", "data-event-type": type || null }, [
          el("div", { class: "what" }, label),
          el("div", { class: "when" }, time)
        ]);
      }
      function load() {
        clear(timeline);
        clear(timelineStatus);
        // Creation emits no event (SPEC part 3); the payment's own time starts the timeline.
        timeline.appendChild(entry(null, "Payment created", when(payment.created), ""));
        timelineStatus.appendChild(el("div", { class: "loading", role: "status" }, "Loading…"));
        self._allEvents("/embed/v1/payments/" + encodeURIComponent(str(payment.id)) + "/events",
          generation).then(
          function (events) {
            if (!self._current(generation)) {
              return;
            }
            clear(timelineStatus);
            events.forEach(function (event) {
              timeline.appendChild(self._timelineEntry(event, entry));
            });
          },
          function (failure) {
            if (self._current(generation) && failure.kind !== "expired") {
              clear(timelineStatus);
              timelineStatus.appendChild(self._failureLine(failure, load));
            }
          });
      }
      load();
    }

    /** Every page of a short list (a payment's events), oldest first. */
    _allEvents(path, generation) {
      var self = this;
      var all = [];
      function page(after, pages) {
        var query = "?limit=100" + (after ? "&starting_after=" + encodeURIComponent(after) : "");
        return self._get(path + query, generation).then(function (body) {
          var items = Array.isArray(body.data) ? body.data : [];
          all = all.concat(items);
          var last = items.length ? str(items[items.length - 1].id) : "";
          return body.has_more === true && last && pages < 10 ? page(last, pages + 1) : all;
        });
      }
      return page("", 1);
    }

    _timelineEntry(event, entry) {
      event = event && typeof event === "object" ? event : {};
      var type = str(event.type);
      var object = event.data && event.data.object && typeof event.data.object === "object"
        ? event.data.object : {};
      var label = EVENT_LABELS[type] || humanize(type);
      if (type.indexOf("refund.") === 0 && typeof object.amount === "number") {
        label = label + ": " + money(object.amount, object.currency);
      }
      if (type === "payment.failed" && object.failure && str(object.failure.message)) {
        label = label + ": " + object.failure.message;
      }
      var tone = /succeeded$/.test(type) ? "good"
        : /(failed|expired|forfeited)$/.test(type) ? "bad"
          : /(processing|created)$/.test(type) ? "busy" : "";
      return entry(type, label, when(event.created), tone);
    }

    // ---------------------------------------------------------------- states

    _expire(failure) {
      if (this._expiredFor === this._generation) {
        return;
      }
      this._expiredFor = this._generation;
      this._abortAll();
      clear(this._panel);
      this._setState("expired");
      this._panel.appendChild(
        this._statePanel("expired", "!", "This session has expired",
          "For your security this view closes after a while. Reload the page to see it again.",
          null));
      var self = this;
      var generation = this._generation;
      var announce = function () {
        if (self._current(generation)) { // not when the page has given a new token meanwhile
          self.dispatchEvent(new CustomEvent(EXPIRED_EVENT, {
            bubbles: true,
            composed: true,
            detail: { code: failure.code || "invalid_token" }
          }));
        }
      };
      // A token already dead when the page loads is refused before the page's own scripts have
      // run; wait for them, so a listener added by any ordinary script of the page hears it.
      if (document.readyState === "loading") {
        document.addEventListener("DOMContentLoaded", announce, { once: true });
      } else {
        announce();
      }
    }

    _statePanel(state, icon, title, text, retry) {
      var box = el("div", { class: "state state-" + state, "data-state": state, role: "status" }, [
        el("div", { class: "icon", "aria-hidden": "true" }, icon),
        el("h2", {}, title),
        el("p", {}, text)
      ]);
      if (retry) {
        var button = el("button", { type: "button", class: "button button-primary",
          "data-action": "retry" }, "Try again");
        button.addEventListener("click", retry);
        box.appendChild(button);
      }
      return box;
    }

    _failureText(failure) {
      switch (failure.kind) {
        case "network":
          return ["Can't reach the server", "Check your connection, then try again."];
        case "rate_limited":
          return ["Too many requests", "Wait a moment, then try again."];
        case "server":
          return ["Something went wrong", "It's not you: try again in a moment."];
        case "forbidden":
          return ["Not available", "This session does not include this view."];
        case "not_found":
          return ["Not found", "It may have been removed, or this session cannot see it."];
        default:
          return ["Something went wrong", failure.message || "The request was refused."];
      }
    }

    _failurePanel(failure, retry) {
      var text = this._failureText(failure);
      var retryable = failure.kind !== "forbidden" && failure.kind !== "not_found";
      return this._statePanel("error", "!", text[0], text[1], retryable ? retry : null);
    }

    _failureLine(failure, retry) {
      var text = this._failureText(failure);
      var line = el("div", { class: "error-line", "data-state": "error", role: "status" },
        text[0] + ". " + text[1]);
      if (failure.kind !== "forbidden" && failure.kind !== "not_found") {
        var button = el("button", { type: "button", class: "button", "data-action": "retry" },
          "Try again");
        button.addEventListener("click", retry);
        line.appendChild(button);
      }
      return line;
    }
  }

  function cssEscape(text) {
    return window.CSS && window.CSS.escape
      ? window.CSS.escape(text)
      : text.replace(/[^a-zA-Z0-9_-]/g, "\\$&");
  }

  window.customElements.define(TAG, PaymentsPanel);
})();
