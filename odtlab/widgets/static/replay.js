/* odtlab replay: a recorded SearchPlayer trace stepped through in the page, with no kernel.
 *
 * A page holds one <script type="application/vnd.odtlab.replay+json"> per player, inside an element of
 * class "odtlab-replay"; its JSON is what SearchPlayer.replay() writes: {"encoding": "gzip+base64",
 * "data": ...}. The payload: "strings" (each distinct caption or pane HTML once; a string may be
 * [base, head, tail, middle], the head and tail of an earlier string around a new middle), "frames" (one
 * column per pane, caption first: the string index of each frame 0..n), "kinds" (the kind code of each
 * event), "options" / "selected" (the kind filter), "basis" (each pane's flex basis), "views" (their
 * class names), "redrawn" / "held" (how many drawings each view kept, and at how many frames it showed an
 * older one to keep the page small), "tree" (the tree view's pane, or -1),
 * "interval" (ms), "events" / "recorded" / "done".
 * Frame k shows the first k events; the slider visits frame 0 and the frames whose last event is of a
 * selected kind. Only the panes whose string changes are redrawn.
 */
(function () {
  "use strict";
  var MIME = "application/vnd.odtlab.replay+json";

  function inflate(bundle) {
    if (bundle.encoding !== "gzip+base64") throw new Error("odtlab replay: unknown encoding " + bundle.encoding);
    var bin = atob(bundle.data), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  function restore(strings) {
    var out = new Array(strings.length);
    for (var i = 0; i < strings.length; i++) {
      var s = strings[i];
      if (typeof s !== "string") {
        var t = out[s[0]];
        s = t.slice(0, s[1]) + s[3] + t.slice(t.length - s[2]);
      }
      out[i] = s;
    }
    return out;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function Player(root, payload) {
    this.root = root;
    this.p = payload;
    this.strings = restore(payload.strings);
    this.selected = {};
    var self = this;
    payload.selected.forEach(function (c) { self.selected[c] = true; });
    this.shown = payload.frames.map(function () { return -1; });
    this.timer = null;
    this.build();
    this.updateStops(0);
  }

  Player.prototype.build = function () {
    var self = this, p = this.p, root = this.root;
    root.textContent = "";
    root.classList.add("odtlab-replay-ready");
    var top = el("div", "odtlab-replay-top");
    var controls = el("div", "odtlab-replay-controls");
    this.playButton = el("button", "odtlab-replay-play", "\u25B6 Play");
    this.playButton.title = "Play / Pause";
    this.backButton = el("button", "odtlab-replay-back", "\u25C0 Back");
    this.backButton.title = "previous event";
    this.stepButton = el("button", "odtlab-replay-step", "Step \u25B6");
    this.stepButton.title = "next event";
    this.endButton = el("button", "odtlab-replay-end", "End \u25B6\u275A");
    this.endButton.title = "the last event";
    var speedLabel = el("label", "odtlab-replay-speed", "ms/step ");
    this.speed = el("input");
    this.speed.type = "number"; this.speed.min = 20; this.speed.max = 2000; this.speed.step = 20;
    this.speed.value = p.interval;
    speedLabel.appendChild(this.speed);
    [this.playButton, this.backButton, this.stepButton, this.endButton, speedLabel].forEach(function (b) {
      controls.appendChild(b);
    });
    var sliderRow = el("div", "odtlab-replay-slider-row");
    this.slider = el("input", "odtlab-replay-slider");
    this.slider.type = "range"; this.slider.min = 0; this.slider.step = 1; this.slider.value = 0;
    this.slider.setAttribute("aria-label", "event");
    this.readout = el("span", "odtlab-replay-readout");
    sliderRow.appendChild(this.slider);
    sliderRow.appendChild(this.readout);
    var left = el("div", "odtlab-replay-left");
    left.appendChild(controls);
    left.appendChild(sliderRow);
    var kinds = el("fieldset", "odtlab-replay-kinds");
    kinds.appendChild(el("legend", null, "kinds"));
    p.options.forEach(function (o) {
      var lab = el("label"), box = el("input");
      box.type = "checkbox"; box.value = o[1]; box.checked = !!self.selected[o[1]];
      box.addEventListener("change", function () {
        self.selected[o[1]] = box.checked;
        self.updateStops(self.k());
      });
      lab.appendChild(box);
      lab.appendChild(document.createTextNode(" " + o[0]));
      kinds.appendChild(lab);
    });
    top.appendChild(left);
    top.appendChild(kinds);
    root.appendChild(top);
    if (p.events < p.recorded || !p.done) {
      root.appendChild(el("div", "odtlab-replay-note",
        "This page replays the first " + p.events + " events of the search; " +
        "run the chapter in JupyterLab for the rest."));
    }
    var sparse = (p.held || []).map(function (h, j) {
      return h > 0 ? p.views[j] + " (an earlier drawing at " + h + " of " + p.frames[j + 1].length + " frames)" : null;
    }).filter(Boolean);
    if (sparse.length) {
      root.appendChild(el("div", "odtlab-replay-note",
        "To keep the page small, some views are redrawn every few events rather than at each one: " +
        sparse.join(", ") + "; the caption follows every event."));
    }
    this.panes = [el("div", "odtlab-replay-caption")];
    root.appendChild(this.panes[0]);
    var body = el("div", "odtlab-replay-body");
    p.basis.forEach(function (basis, j) {
      var pane = el("div", "odtlab-replay-pane" + (j === p.tree ? " odtlab-replay-tree" : ""));
      pane.style.flex = "1 1 " + basis;
      pane.setAttribute("data-view", p.views[j]);
      body.appendChild(pane);
      self.panes.push(pane);
    });
    root.appendChild(body);
    this.playButton.addEventListener("click", function () { self.toggle(); });
    this.backButton.addEventListener("click", function () { self.go(self.i - 1); });
    this.stepButton.addEventListener("click", function () { self.go(self.i + 1); });
    this.endButton.addEventListener("click", function () { self.go(self.stops.length - 1); });
    this.slider.addEventListener("input", function () { self.go(+self.slider.value); });
    this.speed.addEventListener("change", function () { if (self.timer) { self.pause(); self.play(); } });
  };

  /* the frames the slider visits: 0 and each k whose event k-1 is of a selected kind */
  Player.prototype.updateStops = function (k) {
    var kinds = this.p.kinds, stops = [0];
    for (var j = 0; j < kinds.length; j++) if (this.selected[kinds[j]]) stops.push(j + 1);
    this.stops = stops;
    this.slider.max = stops.length - 1;
    var i = 0;
    while (i + 1 < stops.length && stops[i + 1] <= k) i++;  /* the nearest stop at or before k */
    this.i = -1;
    this.go(i);
  };

  Player.prototype.k = function () { return this.stops[this.i]; };

  Player.prototype.go = function (i) {
    i = Math.max(0, Math.min(this.stops.length - 1, i));
    if (i === this.i) return;
    this.i = i;
    this.slider.value = i;
    var k = this.stops[i], frames = this.p.frames;
    for (var c = 0; c < frames.length; c++) {
      var s = frames[c][k];
      if (s !== this.shown[c]) {
        this.panes[c].innerHTML = this.strings[s];
        this.shown[c] = s;
      }
    }
    this.readout.textContent = i + " / " + (this.stops.length - 1);
    if (i === this.stops.length - 1) this.pause();
  };

  Player.prototype.play = function () {
    var self = this;
    if (this.i >= this.stops.length - 1) this.go(0);
    this.playButton.textContent = "\u275A\u275A Pause";
    this.timer = setInterval(function () { self.go(self.i + 1); }, Math.max(20, +this.speed.value || this.p.interval));
  };

  Player.prototype.pause = function () {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.playButton.textContent = "\u25B6 Play";
  };

  Player.prototype.toggle = function () { if (this.timer) this.pause(); else this.play(); };

  function start(root) {
    var script = root.querySelector('script[type="' + MIME + '"]');
    if (!script || root.odtlabReplay) return Promise.resolve(root.odtlabReplay);
    return inflate(JSON.parse(script.textContent)).then(function (payload) {
      root.odtlabReplay = new Player(root, payload);
      return root.odtlabReplay;
    });
  }

  function startAll() {
    var roots = document.querySelectorAll(".odtlab-replay");
    return Promise.all(Array.prototype.map.call(roots, start));
  }

  window.odtlabReplay = {start: start, startAll: startAll, ready: null};
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { window.odtlabReplay.ready = startAll(); });
  } else {
    window.odtlabReplay.ready = startAll();
  }
})();
