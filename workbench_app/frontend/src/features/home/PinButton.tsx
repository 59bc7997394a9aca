// "Pin on the home page" beside a dashboard's or a question's title: administrators only (the
// server refuses anyone else); pressed again, it unpins.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { useSession } from "../../app/session";
import { Button } from "../../ui/Button";
import { homeKey, homeQuery, setPinned, type HomeItem } from "./homeQueries";

export function PinButton({ kind, id }: { kind: HomeItem["kind"]; id: number }) {
  const { user } = useSession();
  if (!user.is_admin) return null;
  return <AdministratorsPinButton kind={kind} id={id} />;
}

function AdministratorsPinButton({ kind, id }: { kind: HomeItem["kind"]; id: number }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const home = useQuery(homeQuery());
  const pinned = home.data?.pinned.some((item) => item.kind === kind && item.id === id) ?? false;
  const toggle = useMutation({
    mutationFn: () => setPinned(kind, id, !pinned),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: homeKey }),
  });
  return (
    <Button onClick={() => toggle.mutate()} disabled={!home.data || toggle.isPending}>
      {pinned ? t("home.unpinFromHome") : t("home.pin")}
    </Button>
  );
}
