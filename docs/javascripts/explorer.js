// The attention explorer: this site's trained models, run in your browser (chapter 7's sum model and
// chapter 11's language model).
//
// The forward pass below is tutorial_code.language_model.CharTransformer and
// tutorial_code.digit_model.DigitModel, written again in plain JavaScript, step by
// step as the site teaches it: embedding (or the projection of each number) plus
// positions, then per layer the six steps of attention (project, score, scale, mask,
// softmax, weighted sum) and the feed-forward network, each with its residual and
// LayerNorm (pre-norm or post-norm), then the output layer (after a mean over the
// positions, for the sum). The weights are those the build trained; they load when
// the explorer scrolls into view. Nothing comes from another host.
"use strict";

(function () {
  // ---- the model ----------------------------------------------------------

  function fromBase64(text) {  // float32, little-endian, as tutorial_code.browser_export writes
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    return new Float32Array(bytes.buffer);
  }

  // x (rows, inF) times W^T plus b: PyTorch's nn.Linear, W stored (outF, inF)
  function linear(x, rows, W, b, inF, outF) {
    const y = new Float32Array(rows * outF);
    for (let r = 0; r < rows; r++) {
      for (let o = 0; o < outF; o++) {
        let sum = b ? b[o] : 0;
        for (let i = 0; i < inF; i++) sum += x[r * inF + i] * W[o * inF + i];
        y[r * outF + o] = sum;
      }
    }
    return y;
  }

  function layerNorm(x, rows, n, gamma, beta, eps) {
    const y = new Float32Array(rows * n);
    for (let r = 0; r < rows; r++) {
      let mean = 0, variance = 0;
      for (let i = 0; i < n; i++) mean += x[r * n + i];
      mean /= n;
      for (let i = 0; i < n; i++) variance += (x[r * n + i] - mean) ** 2;
      const scale = 1 / Math.sqrt(variance / n + eps);  // the biased variance, as PyTorch
      for (let i = 0; i < n; i++) {
        y[r * n + i] = (x[r * n + i] - mean) * scale * gamma[i] + beta[i];
      }
    }
    return y;
  }

  // Multi-head self-attention of one layer for the rows start..T-1 of its input x (those rows only): returns
  // their output and their weights [head][query][key]. K and V (T, d) hold the keys and values of rows
  // 0..start-1 already; this fills in the rest. options.causal: the mask on or off; options.off: a Set of
  // "layer:head" whose output is replaced by zeros.
  function attention(model, layer, x, start, T, options, K, V) {
    const w = (name) => model.weights[`layers.${layer}.attention.${name}`];
    const d = model.d_model, h = model.num_heads, dk = d / h, n = T - start;
    const Q = linear(x, n, w("W_Q.weight"), w("W_Q.bias"), d, d);  // step 1
    K.set(linear(x, n, w("W_K.weight"), w("W_K.bias"), d, d), start * d);
    V.set(linear(x, n, w("W_V.weight"), w("W_V.bias"), d, d), start * d);
    const heads = new Float32Array(n * d);
    const weights = [];
    for (let head = 0; head < h; head++) {
      const rows = [];
      for (let t = start; t < T; t++) {
        const q = (t - start) * d + head * dk;  // this query's slice of Q
        const scores = new Float32Array(T);
        let top = -Infinity;
        for (let s = 0; s < T; s++) {
          if (options.causal && s > t) { scores[s] = -Infinity; continue; }  // step 4
          let dot = 0;  // step 2: query t against key s, in this head's slice
          for (let i = 0; i < dk; i++) dot += Q[q + i] * K[s * d + head * dk + i];
          scores[s] = dot / Math.sqrt(dk);  // step 3
          top = Math.max(top, scores[s]);
        }
        let total = 0;  // step 5: softmax, shifted by the largest score
        for (let s = 0; s < T; s++) { scores[s] = Math.exp(scores[s] - top); total += scores[s]; }
        for (let s = 0; s < T; s++) scores[s] /= total;
        rows.push(scores);
        if (options.off.has(`${layer}:${head}`)) continue;
        for (let i = 0; i < dk; i++) {  // step 6: the weighted sum of the values
          let sum = 0;
          for (let s = 0; s < T; s++) sum += scores[s] * V[s * d + head * dk + i];
          heads[q + i] = sum;
        }
      }
      weights.push(rows);
    }
    return { output: linear(heads, n, w("W_O.weight"), w("W_O.bias"), d, d), weights };
  }

  function feedForward(model, layer, x, T) {
    const w = (name) => model.weights[`layers.${layer}.feed_forward.${name}`];
    const d = model.d_model, dff = w("linear1.bias").length;
    const hidden = linear(x, T, w("linear1.weight"), w("linear1.bias"), d, dff);
    for (let i = 0; i < hidden.length; i++) hidden[i] = Math.max(0, hidden[i]);  // ReLU
    return linear(hidden, T, w("linear2.weight"), w("linear2.bias"), dff, d);
  }

  // Chapter 11's model: the logits (T, vocabulary) of the ids, and every layer's attention weights.
  // Chapter 7's sum model (model.kind "numbers"): its prediction for the numbers, and the weights.
  // cache (optional, an object the caller keeps): under the causal mask position t reads positions 0..t
  // only, so the rows of a text are those of its start; when the ids begin with those of the last call,
  // only the new rows are computed, the others taken from the cache, as a KV cache does (chapter 12).
  function forward(model, input, options = {}, cache = null) {
    options = { causal: model.kind !== "numbers", off: new Set(), ...options };
    const d = model.d_model, T = input.length, eps = model.layer_norm_eps;
    const normFirst = model.norm_first !== false;  // chapter 11's layers are pre-norm
    const positions = model.weights["positions.table"];
    const key = `${options.causal}|${[...options.off].sort().join(",")}`;
    const reuse = cache && options.causal && cache.key === key && cache.ids && cache.ids.length <= T
      && cache.ids.every((id, t) => id === input[t]);
    const start = reuse ? cache.ids.length : 0, n = T - start;  // rows start..T-1 are computed now
    let x = new Float32Array(n * d);
    for (let t = start; t < T; t++) {
      for (let i = 0; i < d; i++) {
        const token = model.kind === "numbers"  // one number -> one vector, or one character's row
          ? input[t] * model.weights["input_projection.weight"][i] + model.weights["input_projection.bias"][i]
          : model.weights["embedding.weight"][input[t] * d + i];
        x[(t - start) * d + i] = token + positions[t * d + i];
      }
    }
    const allWeights = [], layers = [];
    for (let layer = 0; layer < model.num_layers; layer++) {
      const w = (name) => model.weights[`layers.${layer}.${name}`];
      const norm = (v, i) => layerNorm(v, n, d, w(`norm${i}.weight`), w(`norm${i}.bias`), eps);
      const add = (a, b) => a.map((value, i) => value + b[i]);  // the residual connection
      const K = new Float32Array(T * d), V = new Float32Array(T * d);
      const kept = reuse ? cache.layers[layer] : null;
      if (kept) { K.set(kept.K.subarray(0, start * d)); V.set(kept.V.subarray(0, start * d)); }
      const attended = attention(model, layer, normFirst ? norm(x, 1) : x, start, T, options, K, V);
      const longer = (row) => { const full = new Float32Array(T); full.set(row); return full; };  // 0 past t
      const weights = kept
        ? kept.weights.map((rows, h) => rows.map(longer).concat(attended.weights[h]))
        : attended.weights;
      allWeights.push(weights);
      layers.push({ K, V, weights });
      if (normFirst) {  // x + F(norm(x))
        x = add(x, attended.output);
        x = add(x, feedForward(model, layer, norm(x, 2), n));
      } else {  // norm(x + F(x)), as the paper
        x = norm(add(x, attended.output), 1);
        x = norm(add(x, feedForward(model, layer, x, n)), 2);
      }
    }
    const final = model.weights["final_norm.weight"]
      ? layerNorm(x, n, d, model.weights["final_norm.weight"], model.weights["final_norm.bias"], eps)
      : x;
    if (model.kind === "numbers") {  // the mean over positions, then the head
      const pooled = new Float32Array(d);
      for (let t = 0; t < T; t++) for (let i = 0; i < d; i++) pooled[i] += final[t * d + i] / T;
      const prediction = linear(pooled, 1, model.weights["head.weight"], model.weights["head.bias"], d, 1)[0];
      return { prediction, weights: allWeights };
    }
    const size = model.chars.length;
    const logits = new Float32Array(T * size);
    if (reuse) logits.set(cache.logits.subarray(0, start * size));
    logits.set(linear(final, n, model.weights["output.weight"], model.weights["output.bias"], d, size), start * size);
    if (cache) Object.assign(cache, { key, ids: Array.from(input), layers, logits });
    return { logits, weights: allWeights };
  }

  // ---- sampling: temperature, then top-p, as tutorial_code.language_model.generate

  function probabilities(logits, temperature, topP) {
    const scaled = Array.from(logits, (z) => z / temperature);
    const top = Math.max(...scaled);
    let p = scaled.map((z) => Math.exp(z - top));
    const total = p.reduce((a, b) => a + b, 0);
    p = p.map((q) => q / total);
    if (topP < 1) {  // keep the smallest set of likeliest characters whose sum reaches topP
      const order = p.map((q, i) => i).sort((a, b) => p[b] - p[a]);
      const kept = new Set();
      let sum = 0;
      for (const i of order) { kept.add(i); sum += p[i]; if (sum >= topP) break; }
      p = p.map((q, i) => (kept.has(i) ? q / sum : 0));
    }
    return p;
  }

  function draw(p, u) {  // u uniform in [0, 1): the character whose cumulative range holds it
    let sum = 0;
    for (let i = 0; i < p.length; i++) { sum += p[i]; if (u < sum) return i; }
    return p.findIndex((q) => q > 0);
  }

  async function loadModel(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    const model = await response.json();
    for (const name of Object.keys(model.weights)) model.weights[name] = fromBase64(model.weights[name].data);
    return model;
  }

  // ---- the page -----------------------------------------------------------

  const WORDS = {
    en: {
      load: "Load the model", loading: "Loading the model…", text: "Your text", numbers: "Your digits",
      layer: "Layer", head: "Head", mean: "mean of the heads", mask: "Causal mask",
      headsOff: "Heads switched off", temperature: "Temperature", topP: "Top-p",
      next: "Next character", add: "Add one character", addMany: "Add 20", reset: "Start again",
      reads: (q, t, list) => `Query ${q} (position ${t}) reads: ${list}`,
      hover: "Point at a row, or move to it with the Tab key, to see which keys that query reads.",
      guesses: "The model's guess after each character: ",
      unknown: (c) => `The character ${c} is not in the model's vocabulary; it was left out.`,
      grid: (layer, head) => `Attention weights of layer ${layer}, ${head}: rows are queries, columns keys`,
      sum: (prediction, truth) => `The model's sum: ${prediction} (the digits add up to ${truth})`,
    },
    zh: {
      load: "加载模型", loading: "正在加载模型…", text: "你的文字", numbers: "你的数字",
      layer: "层", head: "头", mean: "各头的均值", mask: "因果掩码",
      headsOff: "关掉的头", temperature: "温度", topP: "Top-p",
      next: "下一个字符", add: "添加一个字符", addMany: "添加 20 个", reset: "重新开始",
      reads: (q, t, list) => `查询 ${q}（位置 ${t}）读取：${list}`,
      hover: "把指针移到某一行上，或用 Tab 键移到它，就能看到这个查询读取了哪些键。",
      guesses: "模型在每个字符之后的猜测：",
      unknown: (c) => `字符 ${c} 不在模型的词表中，已略去。`,
      grid: (layer, head) => `第 ${layer} 层、${head}的注意力权重：行是查询，列是键`,
      sum: (prediction, truth) => `模型给出的和：${prediction}（这些数字实际相加为 ${truth}）`,
    },
  };

  const shown = (c) => (c === " " ? "␣" : c === "\n" ? "↵" : c);
  const quoted = (c) => `“${shown(c)}”`;

  function element(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) {
      if (key === "text") node.textContent = value;
      else node.setAttribute(key, value);
    }
    node.append(...children);
    return node;
  }

  function labelled(text, control) {
    return element("label", {}, element("span", { text }), control);
  }

  function build(root, model, words) {
    const numbers = model.kind === "numbers";  // chapter 7's sum model, or chapter 11's language model
    const state = { off: new Set(), cache: {} };
    // a text area, not an input: the language model writes line breaks too
    const input = element("textarea", { rows: numbers ? "1" : "2" });
    input.value = root.dataset.prompt || (numbers ? "3 1 4 1 5 9 2 6" : "The value of the ");
    const layerSelect = element("select");
    for (let l = 0; l < model.num_layers; l++) layerSelect.append(element("option", { value: String(l), text: String(l) }));
    const headSelect = element("select");
    headSelect.append(element("option", { value: "mean", text: words.mean }));
    for (let h = 0; h < model.num_heads; h++) headSelect.append(element("option", { value: String(h), text: String(h) }));
    const mask = element("input", { type: "checkbox" });
    mask.checked = true;
    const offBoxes = element("span", { class: "explorer-heads" });
    for (let l = 0; l < model.num_layers; l++) {
      for (let h = 0; h < model.num_heads; h++) {
        const box = element("input", { type: "checkbox", "data-head": `${l}:${h}` });
        box.addEventListener("change", () => { box.checked ? state.off.add(`${l}:${h}`) : state.off.delete(`${l}:${h}`); update(); });
        offBoxes.append(labelled(`${l}:${h}`, box));
      }
    }
    const temperature = element("input", { type: "range", min: "0.05", max: "2", step: "0.05", value: "1" });
    const topP = element("input", { type: "range", min: "0.05", max: "1", step: "0.05", value: "1" });
    const temperatureValue = element("output"), topPValue = element("output");
    const add = element("button", { type: "button", class: "md-button", text: words.add });
    const addMany = element("button", { type: "button", class: "md-button", text: words.addMany });
    const grid = element("div", { class: "explorer-grid" });
    const reads = element("p", { class: "explorer-reads", "aria-live": "polite", text: words.hover });
    const guesses = element("p", { class: "explorer-guesses", "aria-live": "polite" });
    const bars = element("ol", { class: "explorer-bars", "aria-label": words.next });
    const note = element("p", { class: "explorer-note", "aria-live": "polite" });
    const choices = [labelled(numbers ? words.numbers : words.text, input), labelled(words.layer, layerSelect),
      labelled(words.head, headSelect)];
    if (!numbers) choices.push(labelled(words.mask, mask));
    const parts = [element("div", { class: "explorer-controls" }, ...choices),
      element("div", { class: "explorer-controls" }, element("span", { text: `${words.headsOff}:` }), offBoxes),
      grid, reads, guesses];
    if (!numbers) {
      parts.push(element("div", { class: "explorer-controls" },
        labelled(words.temperature, temperature), temperatureValue, labelled(words.topP, topP), topPValue,
        add, addMany), element("h4", { text: words.next }), bars);
    }
    root.replaceChildren(...parts, note);

    function inputs() {  // the model's input, and the label of each position
      if (numbers) {
        const found = (input.value.match(/\d+(\.\d+)?/g) || []).map(Number).slice(0, model.context);
        return { values: found, labels: found.map(String) };
      }
      const known = [], unknown = new Set();
      for (const c of input.value) (model.index.has(c) ? known.push(model.index.get(c)) : unknown.add(c));
      note.textContent = [...unknown].map((c) => words.unknown(quoted(c))).join(" ");
      const values = known.slice(-model.context);
      return { values, labels: values.map((i) => model.chars[i]) };
    }

    function update() {
      const { values, labels } = inputs();
      if (values.length === 0) { grid.replaceChildren(); bars.replaceChildren(); return; }
      const result = forward(model, values, { causal: numbers ? false : mask.checked, off: state.off }, state.cache);
      const T = values.length;
      const layer = Number(layerSelect.value), head = headSelect.value;
      const perHead = result.weights[layer];
      const weightAt = (t, s) => (head === "mean"
        ? perHead.reduce((sum, rows) => sum + rows[t][s], 0) / perHead.length
        : perHead[Number(head)][t][s]);
      let top = 0;  // the colours run from 0 to the largest weight shown
      for (let t = 0; t < T; t++) for (let s = 0; s < T; s++) top = Math.max(top, weightAt(t, s));
      const table = element("table", { class: "explorer-table", "aria-label": words.grid(layer, head === "mean" ? words.mean : `${words.head} ${head}`) });
      const header = element("tr", {}, element("th", {}));
      labels.forEach((c) => header.append(element("th", { scope: "col", text: shown(c) })));
      table.append(header);
      labels.forEach((c, t) => {
        const row = element("tr", { tabindex: "0" }, element("th", { scope: "row", text: shown(c) }));
        const ranked = [];
        for (let s = 0; s < T; s++) {
          const value = weightAt(t, s);
          ranked.push([value, s]);
          const cell = element("td", { title: value.toFixed(3) });
          cell.style.setProperty("--weight", (value / (top || 1)).toFixed(3));
          row.append(cell);
        }
        ranked.sort((a, b) => b[0] - a[0]);
        const text = words.reads(quoted(c), t,
          ranked.slice(0, 3).map(([v, s]) => `${quoted(labels[s])} ${s} (${v.toFixed(2)})`).join(", "));
        row.setAttribute("aria-label", text);
        const show = () => { reads.textContent = text; };
        row.addEventListener("mouseenter", show);
        row.addEventListener("focus", show);
        table.append(row);
      });
      grid.replaceChildren(table);
      if (numbers) {
        const truth = values.reduce((a, b) => a + b, 0);
        guesses.textContent = words.sum((result.prediction * model.target_scale).toFixed(1), truth);
        return;
      }
      const V = model.chars.length, best = [];
      for (let t = 0; t < T; t++) {
        let top = 0;
        for (let v = 1; v < V; v++) if (result.logits[t * V + v] > result.logits[t * V + top]) top = v;
        best.push(shown(model.chars[top]));
      }
      guesses.textContent = words.guesses + best.join(" ");
      const last = result.logits.slice((T - 1) * V, T * V);
      const p = probabilities(last, Number(temperature.value), Number(topP.value));
      temperatureValue.textContent = Number(temperature.value).toFixed(2);
      topPValue.textContent = Number(topP.value).toFixed(2);
      const order = p.map((q, i) => i).sort((a, b) => p[b] - p[a]).slice(0, 10);
      bars.replaceChildren(...order.map((i) => {
        const bar = element("li", { "aria-label": `${quoted(model.chars[i])} ${p[i].toFixed(3)}` },
          element("span", { class: "explorer-char", text: shown(model.chars[i]) }),
          element("span", { class: "explorer-bar" }), element("span", { text: p[i].toFixed(3) }));
        bar.style.setProperty("--p", p[i].toFixed(4));
        return bar;
      }));
      state.p = p;
    }

    function addCharacters(n) {
      for (let k = 0; k < n; k++) {
        update();
        if (!state.p) return;
        input.value += model.chars[draw(state.p, Math.random())];
      }
      update();
    }

    for (const control of [input, layerSelect, headSelect, mask, temperature, topP]) {
      control.addEventListener("input", update);
    }
    add.addEventListener("click", () => addCharacters(1));
    addMany.addEventListener("click", () => addCharacters(20));
    update();
  }

  async function start(root) {
    if (root.dataset.started) return;
    root.dataset.started = "true";
    const words = WORDS[document.documentElement.lang.startsWith("zh") ? "zh" : "en"];
    root.replaceChildren(element("p", { text: words.loading }));
    const model = await loadModel(new URL(root.dataset.model, document.baseURI).href);
    if (model.chars) model.index = new Map(model.chars.map((c, i) => [c, i]));
    build(root, model, words);
    root.dataset.ready = "true";
    return model;
  }

  // For the tests and for the curious, in the browser's console.
  window.attentionExplorer = { loadModel, forward, probabilities, draw };

  for (const root of document.querySelectorAll(".attention-explorer")) {
    const words = WORDS[document.documentElement.lang.startsWith("zh") ? "zh" : "en"];
    const button = element("button", { type: "button", class: "md-button", text: words.load });
    button.addEventListener("click", () => start(root));
    root.replaceChildren(button);
    if ("IntersectionObserver" in window) {  // load once the explorer comes into view
      const observer = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { observer.disconnect(); start(root); }
      }, { rootMargin: "200px" });
      observer.observe(root);
    }
  }
})();
