// What the browser tests ask of a demo page's layout, at any width: no element wider than its box
// (sticking out of the content column, or clipped or scrolled sideways inside its own box), and no
// select that cuts the text of one of its options. Each finding is one line naming the element,
// so a failure says where to look. (The checks run in the page as a string, as englishLeft does.)
import type { Page } from "playwright-core";

/**
 * The elements under `root` wider than their box: an element whose right or left edge lies outside
 * the root's content box, or whose content is wider than itself where it does not let it show
 * (overflow auto, scroll, hidden or clip: a scrollbar or a cut). Hidden elements are skipped.
 */
export function tooWide(page: Page, root = "main"): Promise<string[]> {
  return page.evaluate<string[]>(`((rootSelector) => {
    const root = document.querySelector(rootSelector);
    if (root === null) return ["no " + rootSelector];
    const name = (el) => {
      const id = el.id ? "#" + el.id : "";
      const cls = typeof el.className === "string" && el.className.trim() !== "" ? "." + el.className.trim().split(/\\s+/).join(".") : "";
      const text = (el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 40);
      return el.tagName.toLowerCase() + id + cls + (text ? " \\"" + text + "\\"" : "");
    };
    const style = getComputedStyle(root);
    const box = root.getBoundingClientRect();
    const left = box.left + parseFloat(style.paddingLeft);
    const right = box.right - parseFloat(style.paddingRight);
    const found = [];
    for (const el of root.querySelectorAll("*")) {
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue;
      if (el.closest("svg") !== null && el.tagName.toLowerCase() !== "svg") continue;
      if (rect.right > right + 1 || rect.left < left - 1)
        found.push(name(el) + ": " + Math.round(rect.left) + "-" + Math.round(rect.right) + " px outside " + Math.round(left) + "-" + Math.round(right));
      const overflow = getComputedStyle(el).overflowX;
      if (overflow !== "visible" && el.scrollWidth > el.clientWidth + 1)
        found.push(name(el) + ": " + el.scrollWidth + " px of content in " + el.clientWidth + " px (overflow " + overflow + ")");
    }
    return found;
  })(${JSON.stringify(root)})`);
}

/**
 * The options whose text a select cuts: each option's text measured in the select's font, against
 * the room the select gives it (its width less padding, border and the arrow's room).
 */
export function cutOptions(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const found = [];
    const canvas = document.createElement("canvas");
    const ctx = canvas.getContext("2d");
    for (const select of document.querySelectorAll("select")) {
      const s = getComputedStyle(select);
      ctx.font = s.font;
      const room = select.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 20;
      for (const option of select.options) {
        const width = ctx.measureText(option.text).width;
        if (width > room) found.push((select.name || select.id) + ": " + JSON.stringify(option.text) + " needs " + Math.round(width) + " px, has " + Math.round(room));
      }
    }
    return found;
  })()`);
}
