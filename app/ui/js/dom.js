// Small DOM helpers: every text goes in through textContent, never as HTML.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

export function setStatus(node, message, isError = false) {
  node.textContent = message || "";
  node.classList.toggle("error", Boolean(isError));
  node.setAttribute("role", isError ? "alert" : "status");
}

export function fillSelect(select, values, selected) {
  clear(select);
  for (const value of values) select.append(el("option", { value, selected: value === selected }, value));
}

export function rows(tbody, pairs) {
  clear(tbody);
  for (const [name, value] of pairs) tbody.append(el("tr", {}, el("th", { scope: "row" }, name), el("td", {}, value)));
}

// "Outlet, 2026-03-02" for a chunk, citation or excerpt (API field names: publication, published_at)
export function sourceLine(item) {
  return [item.publication, item.published_at].filter(Boolean).join(", ");
}

export function chunkAnchor(prefix, chunkId) {
  return `${prefix}-${chunkId}`;
}

export function formatMs(value) {
  return Number(value).toFixed(1);
}
