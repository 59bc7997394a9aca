// The bundled fonts a theme may choose (npm @fontsource packages, built into the assets by Vite):
// nothing is fetched from elsewhere at run time, and a font file loads only when a theme uses it.
import "@fontsource/inter/latin-400.css";
import "@fontsource/inter/latin-600.css";
import "@fontsource/source-serif-4/latin-400.css";
import "@fontsource/source-serif-4/latin-600.css";
import "@fontsource/atkinson-hyperlegible/latin-400.css";
import "@fontsource/atkinson-hyperlegible/latin-700.css";
