/**
 * Demo 1: the thundering-herd simulator, live in the page (`/herd`).
 */
import type { Demo } from "../demo.ts";
import { pageHtml } from "../html.ts";

export const herdDemo: Demo = {
  path: "/herd",
  title: { en: "Demo 1 · The thundering herd, live", zh: "演示 1 · 惊群效应，实时模拟" },
  summary: {
    en: "N clients write one row at once; a conflict backs off and tries again. Compare the backoff strategies' work and completion time, computed in your browser.",
    zh: "N 个客户端同时写同一行；冲突的一方退避后重试。比较各退避策略的调用次数和完成时间，全部在你的浏览器里计算。",
  },
  start() {
    return {
      routes: [
        {
          method: "GET",
          path: "/herd",
          handle(_req, res, ctx) {
            const html = pageHtml({ lang: ctx.lang, url: ctx.url, title: herdDemo.title[ctx.lang], body: `<h1>${herdDemo.title[ctx.lang]}</h1>` });
            res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" });
            res.end(html);
          },
        },
      ],
    };
  },
};
