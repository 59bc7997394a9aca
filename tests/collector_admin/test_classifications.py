"""Classification CSV import: all or nothing, per-line errors, upsert, both upload forms."""
from __future__ import annotations

import io

from tests.collector_admin.conftest import assert_error

GOOD = ("dimension,value,attribute,attribute_value\n"
        "campaign,spring_fb,product_line,Shoes\n"
        "campaign,spring_fb,region,EU\n"
        "page_path,/pricing,section,\"Sales, pricing\"\n")


def _import(client, auth, site, body, content_type="text/csv"):
    return client.post(f"/api/v1/sites/{site['id']}/classifications/import", headers=auth, data=body,
                       content_type=content_type)


def test_import_then_upsert(client, auth, site, db):
    response = _import(client, auth, site, GOOD)
    assert response.status_code == 200
    assert response.get_json() == {"imported": 3, "dimensions": ["campaign", "page_path"]}
    listed = client.get(f"/api/v1/sites/{site['id']}/classifications", headers=auth).get_json()
    assert listed["total"] == 3
    assert {"dimension": "page_path", "value": "/pricing", "attribute": "section",
            "attribute_value": "Sales, pricing"} in listed["classifications"]

    # Columns in another order, a BOM and CRLF line ends; an existing row is updated.
    again = "\ufeffattribute,attribute_value,dimension,value\r\nproduct_line,Boots,campaign,spring_fb\r\n"
    assert _import(client, auth, site, again.encode("utf-8")).status_code == 200
    rows = dict(db.execute("select attribute, attribute_value from collect.classifications "
                           "where value = 'spring_fb'").fetchall())
    assert rows == {"product_line": "Boots", "region": "EU"}
    filtered = client.get(f"/api/v1/sites/{site['id']}/classifications?dimension=campaign&limit=1", headers=auth)
    assert filtered.get_json()["total"] == 2 and len(filtered.get_json()["classifications"]) == 1
    assert db.execute("select count(*) from collect.audit_log where action = 'classifications.imported'").fetchone()[0] == 2

    deleted = client.delete(f"/api/v1/sites/{site['id']}/classifications?dimension=campaign", headers=auth)
    assert deleted.get_json() == {"deleted": 2}
    assert db.execute("select count(*) from collect.classifications").fetchone()[0] == 1


def test_multipart_upload(client, auth, site):
    response = client.post(f"/api/v1/sites/{site['id']}/classifications/import", headers=auth,
                           data={"file": (io.BytesIO(GOOD.encode()), "classes.csv")},
                           content_type="multipart/form-data")
    assert response.status_code == 200 and response.get_json()["imported"] == 3
    missing = client.post(f"/api/v1/sites/{site['id']}/classifications/import", headers=auth,
                          data={"other": "x"}, content_type="multipart/form-data")
    assert_error(missing, 400, "missing_file")


def test_any_wrong_line_writes_nothing_and_every_wrong_line_is_reported(client, auth, site, db):
    body = ("dimension,value,attribute,attribute_value\n"
            "campaign,spring_fb,product_line,Shoes\n"       # line 2: fine
            "Campaign,x,product_line,Shoes\n"               # line 3: dimension
            "campaign,autumn\n"                             # line 4: field count
            "\n"                                            # line 5: blank, ignored
            "campaign,spring_fb,product_line,Boots\n"       # line 6: duplicate of line 2
            "campaign,,product_line,Shoes\n"                # line 7: empty value
            "campaign,\"multi\nline\",product_line,\n")     # line 9 (ends there): empty attribute_value
    error = assert_error(_import(client, auth, site, body), 422, "csv_invalid")
    lines = error["details"]["lines"]
    assert [entry["line"] for entry in lines] == [3, 4, 6, 7, 9]
    assert "dimension" in lines[0]["message"] and "4 fields" in lines[1]["message"]
    assert "line 2" in lines[2]["message"]
    assert error["details"]["error_count"] == 5
    assert db.execute("select count(*) from collect.classifications").fetchone()[0] == 0
    assert db.execute("select count(*) from collect.audit_log where action like 'classifications.%%'").fetchone()[0] == 0


def test_unusable_files(client, auth, site, db):
    for body in (b"", b"dimension,value\ncampaign,x\n", b"dimension,value,attribute,attribute_value\n",
                 b"\xff\xfe\x00garbage", "dimension,value,attribute,attribute_value\ncampaign,a\x00b,c,d\n".encode()):
        error = assert_error(_import(client, auth, site, body), 422, "csv_invalid")
        assert isinstance(error["details"], dict)
    assert db.execute("select count(*) from collect.classifications").fetchone()[0] == 0
    assert_error(_import(client, auth, {"id": "00000000-0000-0000-0000-000000000000"}, GOOD), 404)
