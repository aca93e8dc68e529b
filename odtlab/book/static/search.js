/* odtlab book search: a box in the sidebar over the index that the build writes to search_index.js
 * (loaded on first use). Every word typed must occur in a section (its title or text); sections whose
 * title holds the words rank first. */
(function () {
  "use strict";
  var loading = null;

  function load() {
    if (window.ODTLAB_SEARCH) return Promise.resolve(window.ODTLAB_SEARCH);
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = "_static/search_index.js";
        s.onload = function () { resolve(window.ODTLAB_SEARCH); };
        s.onerror = reject;
        document.head.appendChild(s);
      });
    }
    return loading;
  }

  function escapeHtml(t) {
    return t.replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; });
  }

  function snippet(text, word) {
    var i = text.toLowerCase().indexOf(word), start = Math.max(0, i - 60);
    var part = (start > 0 ? "…" : "") + text.slice(start, start + 180) + (start + 180 < text.length ? "…" : "");
    var safe = escapeHtml(part), w = escapeHtml(word).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return w ? safe.replace(new RegExp(w, "ig"), function (m) { return "<mark>" + m + "</mark>"; }) : safe;
  }

  function search(index, query) {
    var words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return [];
    var hits = [];
    index.forEach(function (s) {
      var title = s.section.toLowerCase(), text = s.text.toLowerCase(), score = 0;
      for (var i = 0; i < words.length; i++) {
        var inTitle = title.indexOf(words[i]) >= 0;
        if (!inTitle && text.indexOf(words[i]) < 0) return;
        score += inTitle ? 10 : 1;
      }
      hits.push({s: s, score: score});
    });
    hits.sort(function (a, b) { return b.score - a.score; });
    return hits.slice(0, 30).map(function (h) { return h.s; });
  }

  function show(list, results, query) {
    var word = query.toLowerCase().split(/\s+/).filter(Boolean)[0] || "";
    list.innerHTML = "";
    if (!query.trim()) { list.hidden = true; return; }
    if (!results.length) {
      list.innerHTML = "<li>No section mentions all of these words.</li>";
    }
    results.forEach(function (s) {
      var li = document.createElement("li");
      var href = s.page + (s.id ? "#" + encodeURIComponent(s.id) : "");
      li.innerHTML = '<a href="' + href + '">' + escapeHtml(s.section) + '</a><div class="where">' +
        escapeHtml(s.title) + '</div><div class="snippet">' + snippet(s.text, word) + "</div>";
      list.appendChild(li);
    });
    list.hidden = false;
  }

  function start() {
    var box = document.getElementById("odtlab-search-box"), list = document.getElementById("odtlab-search-results");
    if (!box) return;
    box.addEventListener("focus", load);
    box.addEventListener("input", function () {
      var q = box.value;
      load().then(function (index) { if (box.value === q) show(list, search(index, q), q); });
    });
    var q = new URLSearchParams(location.search).get("q");
    if (q) { box.value = q; box.dispatchEvent(new Event("input")); }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
