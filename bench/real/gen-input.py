#!/usr/bin/env python3
"""gen-input.py - deterministic JSON and XML inputs for the jq and xmllint
runs of the real-program benches (bench/real/inputs.sh).

Usage: gen-input.py json SEED N            N records, a JSON array
       gen-input.py xml SEED N             N items, a catalog with an
                                           internal DTD it is valid by
       gen-input.py xsd                    the XML Schema of that catalog

Writes to stdout.  The same SEED and N give the same bytes on every
machine (random.Random with an integer seed is stable across Python 3
releases), so counts of a run of jq or xmllint on them do not move.
The records mix what those tools spend time on: strings with escapes and
non-ASCII text, integers and floats, nested objects and arrays of varied
length; the XML has attributes, entities, CDATA, comments and a
namespace.  Train and ref use different seeds and sizes (and the JSON of
ref is indented), so a profile is tested on data it was not taken on.
"""
import json
import random
import sys

SYLL = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "zu", "an", "el", "or",
        "qui", "ste", "bra", "ch", "ü", "é", "ø", "ß"]
GROUPS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
          "iota", "kappa", "lambda", "mu"]


def word(r, lo=1, hi=4):
    return "".join(r.choice(SYLL) for _ in range(r.randint(lo, hi)))


def sentence(r, n):
    s = " ".join(word(r) for _ in range(n))
    if r.random() < 0.2:
        s += ' "quoted" \\ tab\there'
    return s


def record(r, i):
    rec = {
        "id": i,
        "name": word(r, 2, 5).capitalize(),
        "group": r.choice(GROUPS),
        "active": r.random() < 0.6,
        "score": round(r.uniform(0, 100), 3),
        "count": r.randint(0, 10 ** r.randint(1, 9)),
        "tags": [word(r) for _ in range(r.randint(0, 6))],
        "loc": {"lat": round(r.uniform(-90, 90), 6), "lon": round(r.uniform(-180, 180), 6)},
        "history": [r.randint(-500, 500) for _ in range(r.randint(0, 12))],
        "note": sentence(r, r.randint(0, 12)) if r.random() < 0.7 else None,
    }
    if r.random() < 0.3:
        rec["parent"] = {"id": r.randint(0, i), "rel": r.choice(["child", "sibling", "copy"])}
    return rec


def gen_json(seed, n):
    r = random.Random(seed)
    recs = [record(r, i) for i in range(n)]
    # ref is indented (seed parity): the lexer's whitespace and the
    # printer's layout paths get run too
    indent = 2 if seed % 2 else None
    sys.stdout.write(json.dumps(recs, ensure_ascii=seed % 3 == 0, indent=indent))
    sys.stdout.write("\n")


DTD = """<!DOCTYPE catalog [
<!ELEMENT catalog (item)*>
<!ATTLIST catalog xmlns:x CDATA #IMPLIED version CDATA #REQUIRED>
<!ELEMENT item (title, price, tags, note?, x:ref*)>
<!ATTLIST item id ID #REQUIRED kind (a|b|c|d) "a" stock CDATA #IMPLIED>
<!ELEMENT title (#PCDATA)>
<!ATTLIST title lang CDATA #IMPLIED>
<!ELEMENT price (#PCDATA)>
<!ATTLIST price currency (EUR|USD|GBP) #REQUIRED>
<!ELEMENT tags (tag)*>
<!ELEMENT tag (#PCDATA)>
<!ELEMENT note (#PCDATA)>
<!ELEMENT x:ref EMPTY>
<!ATTLIST x:ref to IDREF #REQUIRED weight CDATA #IMPLIED>
<!ENTITY co "Example Company &amp; Sons">
]>
"""

XSD = """<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="catalog">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="item" minOccurs="0" maxOccurs="unbounded">
          <xs:complexType>
            <xs:sequence>
              <xs:element name="title">
                <xs:complexType><xs:simpleContent><xs:extension base="xs:string">
                  <xs:attribute name="lang" type="xs:language"/>
                </xs:extension></xs:simpleContent></xs:complexType>
              </xs:element>
              <xs:element name="price">
                <xs:complexType><xs:simpleContent><xs:extension base="xs:decimal">
                  <xs:attribute name="currency" use="required">
                    <xs:simpleType><xs:restriction base="xs:string">
                      <xs:enumeration value="EUR"/><xs:enumeration value="USD"/><xs:enumeration value="GBP"/>
                    </xs:restriction></xs:simpleType>
                  </xs:attribute>
                </xs:extension></xs:simpleContent></xs:complexType>
              </xs:element>
              <xs:element name="tags">
                <xs:complexType><xs:sequence>
                  <xs:element name="tag" type="xs:token" minOccurs="0" maxOccurs="unbounded"/>
                </xs:sequence></xs:complexType>
              </xs:element>
              <xs:element name="note" type="xs:string" minOccurs="0"/>
              <xs:any namespace="##other" processContents="skip" minOccurs="0" maxOccurs="unbounded"/>
            </xs:sequence>
            <xs:attribute name="id" type="xs:ID" use="required"/>
            <xs:attribute name="kind" default="a">
              <xs:simpleType><xs:restriction base="xs:string">
                <xs:pattern value="[a-d]"/>
              </xs:restriction></xs:simpleType>
            </xs:attribute>
            <xs:attribute name="stock" type="xs:nonNegativeInteger"/>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
      <xs:attribute name="version" type="xs:string" use="required"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def gen_xml(seed, n):
    r = random.Random(seed)
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n', DTD,
           '<catalog xmlns:x="urn:sfdo:bench" version="%d">\n' % seed]
    for i in range(n):
        attrs = ' id="i%d"' % i
        if r.random() < 0.7:
            attrs += ' kind="%s"' % r.choice("abcd")
        if r.random() < 0.5:
            attrs += ' stock="%d"' % r.randint(0, 5000)
        out.append("  <item%s>\n" % attrs)
        lang = ' lang="%s"' % r.choice(["en", "de", "fr-CH"]) if r.random() < 0.5 else ""
        out.append("    <title%s>%s</title>\n" % (lang, esc(sentence(r, r.randint(1, 6)))))
        out.append('    <price currency="%s">%d.%02d</price>\n'
                   % (r.choice(["EUR", "USD", "GBP"]), r.randint(0, 9999), r.randint(0, 99)))
        out.append("    <tags>%s</tags>\n" % "".join("<tag>%s</tag>" % word(r)
                                                   for _ in range(r.randint(0, 5))))
        k = r.random()
        if k < 0.2:
            out.append("    <note><![CDATA[%s <raw> & more]]></note>\n" % sentence(r, 8))
        elif k < 0.4:
            out.append("    <note>made by &co; %s</note>\n" % esc(sentence(r, 5)))
        elif k < 0.5:
            out.append("    <!-- %s -->\n" % word(r, 3, 8))
        for _ in range(r.randint(0, 2) if i else 0):
            out.append('    <x:ref to="i%d" weight="%.2f"/>\n' % (r.randint(0, i - 1), r.random()))
        out.append("  </item>\n")
    out.append("</catalog>\n")
    sys.stdout.write("".join(out))


def main():
    a = sys.argv[1:]
    if a[:1] == ["json"] and len(a) == 3:
        gen_json(int(a[1]), int(a[2]))
    elif a[:1] == ["xml"] and len(a) == 3:
        gen_xml(int(a[1]), int(a[2]))
    elif a == ["xsd"]:
        sys.stdout.write(XSD)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
