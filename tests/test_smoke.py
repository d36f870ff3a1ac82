from tests.factories import gql, load_records


async def test_me_answers_for_a_member(client, ws):
    response = await gql(client, ws.tokens["admin"], "{ me { kind name person { email } } }")
    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "me": {"kind": "MEMBER", "name": "Admin", "person": {"email": "admin@acmecorp.example"}}
        }
    }


async def test_records_page_with_relation(client, pool, ws):
    await load_records(
        pool,
        ws.tokens["admin"],
        [
            {"object": "companies", "external_id": "acme", "label": "Acme"},
            {
                "object": "contacts",
                "external_id": "c1",
                "label": "Claire",
                "relations": {"company": {"external_id": "acme"}},
            },
        ],
    )
    response = await gql(
        client,
        ws.tokens["member"],
        '{ records(object: "contacts") { nodes { label relation(attribute: "company") { label } } } }',  # noqa: E501
    )
    assert response.json()["data"]["records"]["nodes"] == [
        {"label": "Claire", "relation": {"label": "Acme"}}
    ]
