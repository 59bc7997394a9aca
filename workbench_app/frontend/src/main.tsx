import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "../../../pipelines/design/tokens.css";

function App() {
  return <main><h1>Workbench</h1></main>;
}

createRoot(document.getElementById("root")!).render(<StrictMode><App /></StrictMode>);
