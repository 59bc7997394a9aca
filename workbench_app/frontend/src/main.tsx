import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "../../../pipelines/design/tokens.css";
import "./app/global.css";
import "./i18n/i18n";
import { App, preloadScreen } from "./app/App";

// The first render waits for the screen's code (a failed download is shown by the screen itself).
void preloadScreen(window.location.pathname).catch(() => undefined).then(() => {
  createRoot(document.getElementById("root")!).render(<StrictMode><App /></StrictMode>);
});
