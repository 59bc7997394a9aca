import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "../../../pipelines/design/tokens.css";
import "./app/global.css";
import "./i18n/i18n";
import { App, preloadScreen } from "./app/App";

// An in-app link starts its screen's code and first reads at the click, as the first load does,
// rather than when the screen first renders.
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
  if (link instanceof HTMLAnchorElement && link.origin === window.location.origin) {
    void preloadScreen(link.pathname, link.search).catch(() => undefined);
  }
}, { capture: true });

// The first render waits for the screen's code (a failed download is shown by the screen itself).
void preloadScreen(window.location.pathname, window.location.search).catch(() => undefined).then(() => {
  createRoot(document.getElementById("root")!).render(<StrictMode><App /></StrictMode>);
});
