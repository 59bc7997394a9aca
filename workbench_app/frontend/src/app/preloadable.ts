// A component whose code loads on first use, like React.lazy, but that renders at once when its
// module has already arrived. React.lazy suspends on a component's first render even when its
// module is loaded, and React 19 holds back the reveal of a suspended boundary for up to 300 ms
// (its fallback throttle): on a dashboard that was a third of the time to the first chart. So the
// screen of the address being opened and the chart code are fetched early (`preload`) and then
// drawn without a fallback.
import { createElement, lazy, useState, type ComponentType, type ReactElement } from "react";

export interface Preloadable<P extends object> {
  (props: P): ReactElement;
  preload: () => Promise<unknown>;
}

export function preloadable<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): Preloadable<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<{ default: ComponentType<P> }> | null = null;
  const preload = () => (pending ??= load().then(
    (module) => { loaded = module.default; return module; },
    (error: unknown) => { pending = null; throw error; }, // a failed download may be tried again
  ));
  const Lazy = lazy(preload);
  const component = (props: P) => {
    // An instance keeps the type it started with: switching from the lazy wrapper to the loaded
    // component would remount it and lose its state (a dashboard's unsaved edits).
    const [type] = useState(() => (loaded ?? Lazy) as ComponentType<P>);
    return createElement(type, props);
  };
  return Object.assign(component, { preload });
}
