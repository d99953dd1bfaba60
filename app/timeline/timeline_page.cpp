#include "app/timeline/timeline_page.hpp"

namespace ksim::app::timeline {

namespace {

constexpr std::string_view kStyle = R"CSS(
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 12px 40px;color:#222;background:#fff}
h1{font-size:18px;margin:10px 0 2px}h2{font-size:15px;margin:18px 0 4px}
.sub,.help{color:#555;margin:2px 0}.none,.notes{color:#555}
button{font:inherit;padding:0 6px}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:6px 0;font-size:12px;color:#444;align-items:center}
.legend span{display:inline-flex;align-items:center;gap:4px}
.sw{display:inline-block;width:14px;height:10px;border-radius:2px;background:var(--c)}
svg{display:block;user-select:none;-webkit-user-select:none}
.rowbg{fill:#fff}.rowbg.odd{fill:#f5f6f8}
text.row{font-size:12px;fill:#222}
text.sec{font-size:11px;font-weight:600;fill:#555;text-transform:uppercase;letter-spacing:.06em}
.secline{stroke:#d5d5d5}
.band{fill:#e15759;opacity:.11;pointer-events:none}
.k-fault{--c:#e15759}.k-down{--c:#3b3b3b}.k-paused{--c:#f28e2b}.k-fenced{--c:#b07aa1}.k-offline{--c:#d62728}
.k-isr{--c:#edc948}.k-loading{--c:#bab0ac}.k-active{--c:#8cd17d}.k-joining{--c:#c9c9c9}.k-generation{--c:#a0cbe8}.k-rebalance{--c:#f28e2b}
.k-txn-commit{--c:#59a14f}.k-txn-abort{--c:#e15759}.k-txn-open{--c:#9c755f}.k-election{--c:#555}.k-unclean{--c:#d62728}
.k-lost{--c:#d62728}.k-duplicated{--c:#f28e2b}.k-reordered{--c:#b07aa1}.k-invariant{--c:#000}.k-truncation{--c:#9c755f}
.k-fail{--c:#e15759}.k-timeout{--c:#d4a72c}.k-event{--c:#888}.k-unprocessed{--c:#76b7b2}.k-leader{--c:#4e79a7}
.s{fill:var(--c);stroke:none}
.sl,.ml{font-size:10px;fill:#111;paint-order:stroke;stroke:#fff;stroke-width:2.5px;stroke-linejoin:round;pointer-events:none}
.m,.key-mark{fill:var(--c);stroke:#fff;stroke-width:.8}.m.k-invariant,.key-mark.k-invariant{fill:none;stroke:#000;stroke-width:2}
.step{fill:none;stroke:#333;stroke-width:1.2;opacity:.75}
text.tick{font-size:10px;fill:#666}.axis text.tick{text-anchor:middle}.tickline,.grid{stroke:#e4e4e4}
#charts text.tick{text-anchor:end}
.cursor{stroke:#333;stroke-dasharray:2 2;pointer-events:none;display:none}
.selection{fill:#4e79a7;opacity:.2;display:none;pointer-events:none}
.series{fill:none;stroke-width:1.6}.key{font-size:11px;font-weight:600}.unit{font-size:11px;fill:#777}
.hit{fill:transparent}.hit:hover{fill:#000;opacity:.05}
#tip{position:absolute;background:#222;color:#fff;padding:4px 7px;border-radius:3px;font-size:12px;white-space:pre-line;
pointer-events:none;max-width:560px;z-index:9}
.msg{stroke-width:1.4}.msg.resp{stroke-dasharray:4 2}.api-produce{stroke:#4e79a7}.api-fetch{stroke:#59a14f}
.api-isr{stroke:#b07aa1}.api-offsets{stroke:#9c755f}.api-other{stroke:#888}#arrow path{fill:#555}
.life{stroke:#bbb;stroke-width:1.5}.life.k-down{stroke:#3b3b3b;stroke-width:6}.life.k-paused{stroke:#f28e2b;stroke-width:6}
.node{font-size:12px;text-anchor:middle;font-weight:600}.msgl{font-size:9px;fill:#555}.msgl.left{text-anchor:end}
.lostmsg{stroke:#d62728;stroke-width:1.5;fill:none}
)CSS";

constexpr std::string_view kScript = R"JS(
(function () {
  "use strict";
  const L = 190, W = 1180, NS = "http://www.w3.org/2000/svg";
  const END = parseFloat(document.body.dataset.end) || 1;
  let t0 = 0, t1 = END;
  const X = (t) => L + (t - t0) / (t1 - t0) * W;
  const T = (x) => t0 + (x - L) / W * (t1 - t0);
  const clampX = (x) => Math.max(-1e6, Math.min(1e6, x));
  const zoomables = Array.from(document.querySelectorAll("svg.zoomable"));
  const fmt = (ms) => {
    const a = Math.abs(ms);
    if (a === 0) return "0s";
    if (a >= 1000) return +(ms / 1000).toFixed(6) + "s";
    if (a >= 1) return +ms.toFixed(3) + "ms";
    return +(ms * 1000).toFixed(3) + "us";
  };
  const niceStep = (span, n) => {
    const raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  };
  function axes() {
    const step = niceStep(t1 - t0, 10);
    for (const g of document.querySelectorAll("svg.zoomable g.axis")) {
      const y = parseFloat(g.dataset.y), bottom = parseFloat(g.dataset.bottom);
      while (g.firstChild) g.removeChild(g.firstChild);
      for (let t = Math.ceil(t0 / step) * step; t <= t1 + step * 1e-6; t += step) {
        const x = X(t);
        const line = document.createElementNS(NS, "line");
        line.setAttribute("class", "tickline");
        line.setAttribute("x1", x); line.setAttribute("x2", x);
        line.setAttribute("y1", y); line.setAttribute("y2", bottom);
        const text = document.createElementNS(NS, "text");
        text.setAttribute("class", "tick");
        text.setAttribute("x", x); text.setAttribute("y", y - 4);
        text.textContent = fmt(t);
        g.appendChild(line); g.appendChild(text);
      }
    }
  }
  function relayout() {
    for (const svg of zoomables) {
      for (const el of svg.querySelectorAll("[data-a]")) {
        const a = parseFloat(el.dataset.a), tag = el.tagName.toLowerCase();
        if (tag === "rect") {
          const x = clampX(X(a));
          el.setAttribute("x", x);
          el.setAttribute("width", Math.max(1, clampX(X(parseFloat(el.dataset.b))) - x));
        } else if (tag === "text" && el.dataset.b !== undefined) {
          const x = X(a), w = X(parseFloat(el.dataset.b)) - x;
          el.removeAttribute("display");
          el.setAttribute("x", clampX(Math.max(x, L) + 3));
          el.style.display = (Math.min(x + w, L + W) - Math.max(x, L)) >= 6.5 * el.textContent.length + 6 ? "" : "none";
        } else if (tag === "text") {
          el.setAttribute("x", clampX(X(a) + parseFloat(el.dataset.dx || "0")));
        } else if (tag === "path") {
          el.setAttribute("transform", "translate(" + clampX(X(a)) + "," + el.dataset.y + ")");
        }
      }
      for (const line of svg.querySelectorAll("polyline[data-ts]")) {
        const ts = line.dataset.ts.split(","), ys = line.dataset.ys.split(",");
        line.setAttribute("points", ts.map((t, i) => clampX(X(parseFloat(t))) + "," + ys[i]).join(" "));
      }
    }
    axes();
    document.getElementById("range").textContent = "Showing " + fmt(t0) + " to " + fmt(t1) + ".";
  }
  // The zoomed range is the page's fragment, #20s..21.5s, so a link opens on it.
  const seconds = (ms) => +(ms / 1000).toFixed(6) + "s";
  function zoom(a, b) {
    t0 = Math.max(0, a); t1 = Math.min(END, b);
    if (t1 - t0 < 0.001) t1 = t0 + 0.001;
    relayout();
    document.documentElement.dataset.zoom = t0 + ".." + t1;
    try {
      history.replaceState(null, "", t0 === 0 && t1 === END ? location.pathname : "#" + seconds(t0) + ".." + seconds(t1));
    } catch (e) { /* a browser that keeps a file's address as it is */ }
  }
  function fromFragment() {
    const parts = decodeURIComponent(location.hash.slice(1)).split("..");
    const time = (text) => {
      const m = /^([0-9]+(?:[.][0-9]+)?)(ms|s)$/.exec(text || "");
      return m ? parseFloat(m[1]) * (m[2] === "s" ? 1000 : 1) : NaN;
    };
    const a = time(parts[0]), b = time(parts[1]);
    if (parts.length === 2 && b > a) zoom(a, b); else relayout();
  }
  for (const svg of zoomables) {
    const sel = svg.querySelector("rect.selection"), cursor = svg.querySelector("line.cursor");
    let start = null;
    const px = (ev) => ev.clientX - svg.getBoundingClientRect().left;
    const inPlot = (x) => x >= L && x <= L + W;
    svg.addEventListener("mousedown", (ev) => {
      const x = px(ev);
      if (!inPlot(x)) return;
      start = x;
      sel.setAttribute("x", x); sel.setAttribute("width", 0); sel.style.display = "block";
      ev.preventDefault();
    });
    svg.addEventListener("mousemove", (ev) => {
      const x = px(ev);
      cursor.setAttribute("x1", x); cursor.setAttribute("x2", x);
      cursor.style.display = inPlot(x) ? "block" : "none";
      if (inPlot(x)) document.getElementById("range").textContent = "Showing " + fmt(t0) + " to " + fmt(t1) + "; cursor at " + fmt(T(x)) + ".";
      if (start === null) return;
      const lo = Math.max(L, Math.min(start, x)), hi = Math.min(L + W, Math.max(start, x));
      sel.setAttribute("x", lo); sel.setAttribute("width", hi - lo);
    });
    svg.addEventListener("mouseleave", () => { cursor.style.display = "none"; });
    window.addEventListener("mouseup", (ev) => {
      if (start === null) return;
      const x = px(ev), lo = Math.max(L, Math.min(start, x)), hi = Math.min(L + W, Math.max(start, x));
      start = null;
      sel.style.display = "none";
      if (hi - lo > 4) zoom(T(lo), T(hi));
    });
    svg.addEventListener("dblclick", () => zoom(0, END));
  }
  document.getElementById("reset").addEventListener("click", () => zoom(0, END));
  const tip = document.getElementById("tip");
  document.addEventListener("mouseover", (ev) => {
    const el = ev.target && ev.target.closest ? ev.target.closest("[data-tip]") : null;
    if (!el) { tip.hidden = true; return; }
    tip.textContent = el.dataset.tip;
    tip.hidden = false;
  });
  document.addEventListener("mousemove", (ev) => {
    if (tip.hidden) return;
    tip.style.left = Math.min(ev.pageX + 14, document.documentElement.scrollWidth - 300) + "px";
    tip.style.top = (ev.pageY + 14) + "px";
  });
  fromFragment();
  window.addEventListener("hashchange", fromFragment);
  const root = document.documentElement;
  root.dataset.tracks = Array.from(document.querySelectorAll("#tracks text.row")).map((t) => t.textContent).join("|");
  root.dataset.marks = String(document.querySelectorAll("#tracks path.m").length);
  root.dataset.spans = String(document.querySelectorAll("#tracks rect.s").length);
  root.dataset.series = String(document.querySelectorAll("#charts polyline.series").length);
  root.dataset.messages = String(document.querySelectorAll("#spacetime line.msg").length);
  root.dataset.rendered = "true";
})();
)JS";

}  // namespace

std::string_view page_style() { return kStyle; }
std::string_view page_script() { return kScript; }

}  // namespace ksim::app::timeline
