import pydantic

V2 = pydantic.VERSION.startswith("2")


def to_camel(name):
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def base(extra):
    """A pydantic base class with camelCase aliases, populated by name too."""
    if V2:
        class Base(pydantic.BaseModel):
            model_config = pydantic.ConfigDict(alias_generator=to_camel, populate_by_name=True,
                                               extra=extra, arbitrary_types_allowed=True)
        return Base

    class Base(pydantic.BaseModel):
        class Config:
            alias_generator = to_camel
            allow_population_by_field_name = True
            arbitrary_types_allowed = True

        @classmethod
        def model_validate(cls, obj):
            return cls.parse_obj(obj)
    Base.Config.extra = extra
    return Base


EvalBaseModel = base("forbid")
