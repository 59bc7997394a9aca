import { describe, expect, it } from "vitest";
import { toFormValues, toOptions } from "./sourceFields";

describe("source forms", () => {
  it("sends numbers as numbers and lists as arrays, leaves empty fields out of a new source", () => {
    expect(toOptions("couchdb", { url: " http://h:5984 ", databases: "a, b,,", sample_size: "50", user: "" }, false))
      .toEqual({ url: "http://h:5984", databases: ["a", "b"], sample_size: 50 });
  });
  it("sends an emptied field as null when editing, so the server removes it", () => {
    expect(toOptions("sqlite", { path: "" }, true)).toEqual({ path: null });
  });
  it("shows lists as comma-separated names", () => {
    expect(toFormValues("postgres", { host: "db", port: 5432, schemas: ["a", "b"] }))
      .toMatchObject({ host: "db", port: "5432", schemas: "a, b", user: "" });
  });
  it("keeps a number the person mistyped as text, for the server to refuse with its field", () => {
    expect(toOptions("mysql", { host: "h", database: "d", user: "u", port: "33o6" }, false).port).toBe("33o6");
  });
});
