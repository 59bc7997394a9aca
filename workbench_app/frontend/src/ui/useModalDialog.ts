import { useEffect, useRef } from "react";

/** A native <dialog> shown as a modal while the component is mounted (focus kept inside, Escape
 * fires its `cancel`), closed when it unmounts. */
export function useModalDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return ref;
}
