// The home page's reads and the pins' writes: one query key for everything the home page shows.
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";

export type Home = components["schemas"]["Home"];
export type HomeItem = components["schemas"]["HomeItem"];
export type NextStep = components["schemas"]["NextStep"];

export const homeKey = ["home"] as const;

export const homeQuery = () => queryOptions({
  queryKey: homeKey,
  queryFn: () => data(api.GET("/home")),
});

/** Pin (or unpin) a dashboard or a question on everyone's home page (administrators). */
export async function setPinned(kind: HomeItem["kind"], id: number, pinned: boolean): Promise<void> {
  if (kind === "dashboard") {
    const options = { params: { path: { dashboard_id: id } } };
    await data(pinned ? api.PUT("/home/pins/dashboards/{dashboard_id}", options) : api.DELETE("/home/pins/dashboards/{dashboard_id}", options));
  } else {
    const options = { params: { path: { question_id: id } } };
    await data(pinned ? api.PUT("/home/pins/questions/{question_id}", options) : api.DELETE("/home/pins/questions/{question_id}", options));
  }
}

/** Where an item opens in the application. */
export const itemPath = (item: Pick<HomeItem, "kind" | "id">) =>
  item.kind === "dashboard" ? `/dashboards/${item.id}` : `/questions/${item.id}`;
