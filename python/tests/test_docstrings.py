"""Every public name of the package has a numpydoc docstring (PyAMG's and scipy's style) and a
signature help() shows in a few lines (the annotations' aliases named, not expanded)."""
import inspect

import hspgemm


def _public():
    return [(name, getattr(hspgemm, name)) for name in hspgemm.__all__]


def test_every_public_name_is_documented():
    bare = [name for name, obj in _public() if not (inspect.getdoc(obj) or "").strip()]
    assert not bare, f"no docstring: {bare}"


def test_functions_have_numpydoc_sections():
    missing = []
    for name, obj in _public():
        if not inspect.isfunction(obj):
            continue
        doc = inspect.getdoc(obj)
        params = [p for p in inspect.signature(obj).parameters.values()]
        if params and "Parameters\n----------" not in doc:
            missing.append(f"{name}: Parameters")
        if "Returns\n-------" not in doc:
            missing.append(f"{name}: Returns")
    assert not missing, f"numpydoc sections missing: {missing}"


def test_classes_document_their_attributes_or_parameters():
    missing = [name for name, obj in _public() if inspect.isclass(obj) and not issubclass(obj, Exception)
               and not any(s in inspect.getdoc(obj) for s in ("Attributes\n----------", "Parameters\n----------"))]
    assert not missing, f"classes without Attributes or Parameters: {missing}"


def test_signatures_stay_short():
    """At most 540 characters (amg_setup's, the longest, 531: its set-up and context options)."""
    long = {name: len(str(inspect.signature(obj))) for name, obj in _public()
            if callable(obj) and not inspect.isclass(obj) and len(str(inspect.signature(obj))) > 540}
    assert not long, f"signatures over 540 characters: {long}"
