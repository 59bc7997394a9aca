// "PDF": the dashboard as the viewer shows it now (the filters of the URL), printed on A4 by the
// server and downloaded. The server may answer that it is busy or has no browser: said, not thrown.
// A shared page (public link, embed) passes `print`, its own way to the server's PDF.
import { useMutation } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";
import { api, data } from "../../api/client";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";

interface Props {
  dashboardId: number;
  name: string;
  /** The PDF of these `f.<filter id>` parameters; the signed-in viewer's endpoint when left out. */
  print?: (filters: URLSearchParams) => Promise<Blob>;
}

export function DownloadPdfButton({ dashboardId, name, print }: Props) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const download = useMutation({
    mutationFn: async () => {
      const filters = new URLSearchParams([...params].filter(([key]) => key.startsWith("f.")));
      const blob = print ? await print(filters) : await data(api.GET("/dashboards/{dashboard_id}/pdf", {
        params: { path: { dashboard_id: dashboardId } },
        // The viewer's own URL parameters, as they are (`f.<filter id>=value`).
        querySerializer: () => filters.toString(),
        parseAs: "blob",
      })) as Blob;
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = `${name.replace(/[^\p{L}\p{N} _-]+/gu, "").trim() || "dashboard"}.pdf`;
      link.click();
      URL.revokeObjectURL(link.href);
    },
  });
  return (
    <>
      <Button onClick={() => download.mutate()} disabled={download.isPending}>
        {download.isPending ? t("printing.preparing") : t("printing.downloadPdf")}
      </Button>
      <ErrorMessage error={download.error} />
    </>
  );
}
