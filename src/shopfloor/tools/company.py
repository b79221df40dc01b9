"""The company's letterhead: what every printed document carries at its head."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

from pydantic import Field

from shopfloor.domain.base import company
from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import CompanyProfile
from shopfloor.tools.fields import Name, Out
from shopfloor.tools.partners import Address, Email, Phone, TaxId

tools = Toolset("company")
MAX_BASE64 = company.MAX_LOGO * 4 // 3 + 4


class CompanyProfileOut(Out):
    name: str | None = Field(description="none until the letterhead is set")
    address: str | None = Field(None, description="one line per line")
    tax_id: str | None = None
    email: str | None = None
    phone: str | None = None
    logo_type: str | None = Field(None, description="image/png or image/svg+xml")
    logo: str | None = Field(None, description="base64 of the file")
    updated_at: datetime | None = None


def profile_out(row: CompanyProfile | None) -> CompanyProfileOut:
    if row is None:
        return CompanyProfileOut(name=None)
    return CompanyProfileOut(name=row.name, address=row.address, tax_id=row.tax_id,
                             email=row.email, phone=row.phone, logo_type=row.logo_type,
                             logo=row.logo, updated_at=row.updated_at)


class GetCompanyProfile(Request):
    pass


@tools.read("get_company_profile", title="Get company profile", response=CompanyProfileOut,
            description="The letterhead every document prints.")
def get_company_profile(op: Op, req: GetCompanyProfile) -> CompanyProfileOut:
    return profile_out(company.profile(op))


class SetCompanyProfile(WriteRequest):
    name: Name
    address: Address | None = Field(None, description="one line per line")
    tax_id: TaxId | None = None
    email: Email | None = None
    phone: Phone | None = None
    logo: str | None = Field(None, max_length=MAX_BASE64,
                             description="PNG or SVG, base64, at most 200 KB",
                             json_schema_extra={"contentEncoding": "base64",
                                                "contentMediaType": "image/png, image/svg+xml"})
    clear_logo: bool = False


def _logo(text: str) -> tuple[str, str]:
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ValidationFailed("the logo is not base64 (the file's bytes, encoded)",
                               field="logo") from None
    return base64.b64encode(data).decode(), company.logo_type(data)


@tools.write("set_company_profile", title="Set company profile",
             response=CompanyProfileOut, role=Role.admin,
             description="Set the letterhead every document prints; a field left out is "
                         "cleared, the logo kept unless given or cleared.",
             destructive=True,  # the letterhead it replaces is gone
             undo=Undo.refused("set it again as it was"))
def set_company_profile(op: Op, req: SetCompanyProfile) -> Done[CompanyProfileOut]:
    logo = _logo(req.logo) if req.logo else None
    row = company.put(op, {k: getattr(req, k) for k in company.FIELDS}, logo,
                      req.clear_logo)
    return Done(f"Set the letterhead of {row.name}", profile_out(row))
