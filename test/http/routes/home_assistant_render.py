"""
Renders the Home Assistant entities of docs/HOME-ASSISTANT.md as Home Assistant would, with the
real Jinja2 (Debian's python3-jinja2, run by /usr/bin/python3), for test/http/routes/home-assistant.test.ts.

Reads one JSON object on stdin: {"now": unix seconds, "answers": {resource: body text or null},
"rest": [rest entry, ...], "template": [template entry, ...]} (the page's YAML, with each rest
entry's answer under "answers"), and prints {"states": {entity_id: {"state", "attributes"}},
"log": [message, ...]}. Only the entities' own attributes are given (Home Assistant adds
friendly_name, icon, unit_of_measurement and state_class beside them).

What is modelled, each from home-assistant/core (dev branch, read for this file; its code is not
copied here, its behaviour is re-stated):
- homeassistant/components/rest/sensor.py RestSensor._update_from_rest_data and
  binary_sensor.py RestBinarySensor._update_from_rest_data: the variables {value, value_json}
  (value_json only when the answer parses as JSON); `availability` rendered first (strict
  undefined, the result parsed, then result_as_boolean; a template error leaves the entity
  AVAILABLE and is logged); unavailable ends the update; then json_attributes
  (rest/util.py parse_json_attributes: JSONPath, first match, keys present), then value_template
  (ValueTemplate.async_render_as_value_template: lenient undefined, a jinja2.TemplateError gives
  None, the text stripped).
- homeassistant/components/sensor/__init__.py SensorEntity.state: with a unit of measurement the
  value must convert with float() and be finite, or the state is not written (the
  "non-numeric value" error the issue saw).
- binary_sensor: bool(int(text)), else text.lower() in true/on/open/yes.
- homeassistant/helpers/entity.py: an unavailable entity's state is "unavailable" and carries
  none of its extra attributes.
- homeassistant/helpers/template: the ImmutableSandboxedEnvironment, the float, round and
  as_timestamp filters and functions, the is_number filter and test, now() and state_attr(),
  Template._parse_result (literal_eval, numbers kept only when they look like numbers) and
  result_as_boolean (config_validation.boolean).
- homeassistant/components/template (a `template:` sensor): availability rendered leniently and
  result_as_boolean; unavailable, or the state template's text.
A template that uses a filter, test or function this file does not define fails to render, and
the test sees it in "log": nothing of Home Assistant is guessed.
"""

import ast
import json
import math
import re
import sys
from datetime import datetime, timezone

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

LOG = []
_SENTINEL = object()


def raise_no_default(function, value):
    raise ValueError(f"Template error: {function} got invalid input '{value}' but no default was specified")


def forgiving_float(value, default=_SENTINEL):
    try:
        return float(value)
    except (ValueError, TypeError):
        if default is _SENTINEL:
            raise_no_default("float", value)
        return default


def forgiving_round(value, precision=0, method="common", default=_SENTINEL):
    try:
        multiplier = float(10**precision)
        if method == "ceil":
            value = math.ceil(float(value) * multiplier) / multiplier
        elif method == "floor":
            value = math.floor(float(value) * multiplier) / multiplier
        elif method == "half":
            value = round(float(value) * 2) / 2
        else:
            value = round(float(value), precision)
        return int(value) if precision == 0 else value
    except (ValueError, TypeError):
        if default is _SENTINEL:
            raise_no_default("round", value)
        return default


def is_number(value):
    """Home Assistant's is_number: float() succeeds and is finite (so False and True ARE numbers)."""
    try:
        fvalue = float(value)
    except (ValueError, TypeError):
        return False
    return math.isfinite(fvalue)


def parse_datetime(text):
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def forgiving_as_timestamp(value, default=_SENTINEL):
    try:
        parsed = value if isinstance(value, datetime) else parse_datetime(str(value))
        if parsed is None:
            raise ValueError("not a valid date/time.")
        return parsed.timestamp()
    except (ValueError, TypeError):
        if default is _SENTINEL:
            raise_no_default("as_timestamp", value)
        return default


def cv_boolean(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        value = value.lower().strip()
        if value in ("1", "true", "yes", "on", "enable"):
            return True
        if value in ("0", "false", "no", "off", "disable"):
            return False
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    raise ValueError(f"invalid boolean value {value}")


def result_as_boolean(result):
    if result is None:
        return False
    try:
        return cv_boolean(result)
    except ValueError:
        return False


_IS_NUMERIC = re.compile(r"^[+-]?(?!0\d)\d*(?:\.\d*)?$")


def parse_result(text):
    try:
        result = ast.literal_eval(text)
        if not isinstance(result, (str, complex)) and (
            not isinstance(result, (int, float)) or isinstance(result, bool) or _IS_NUMERIC.match(text) is not None
        ):
            return result
    except (ValueError, TypeError, SyntaxError, MemoryError):
        pass
    return text


class LoggingUndefined(jinja2.Undefined):
    """Home Assistant's lenient undefined: as Jinja's, with a log line on each use."""

    def _fail_with_undefined_error(self, *args, **kwargs):
        try:
            return super()._fail_with_undefined_error(*args, **kwargs)
        except self._undefined_exception:
            LOG.append(f"ERROR Template variable error: {self._undefined_message}")
            raise

    def __str__(self):
        LOG.append(f"WARNING Template variable warning: {self._undefined_message}")
        return super().__str__()

    def __bool__(self):
        LOG.append(f"WARNING Template variable warning: {self._undefined_message}")
        return super().__bool__()


class World:
    def __init__(self, now):
        self.now = now
        self.states = {}

    def environment(self, strict):
        env = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined if strict else LoggingUndefined)
        env.filters["float"] = forgiving_float
        env.filters["round"] = forgiving_round
        env.filters["as_timestamp"] = forgiving_as_timestamp
        env.filters["is_number"] = is_number
        env.tests["is_number"] = is_number
        env.globals["float"] = forgiving_float
        env.globals["as_timestamp"] = forgiving_as_timestamp
        env.globals["is_number"] = is_number
        env.globals["now"] = lambda: datetime.fromtimestamp(self.now, tz=timezone.utc)
        env.globals["state_attr"] = self.state_attr
        return env

    def state_attr(self, entity_id, name):
        state = self.states.get(entity_id)
        return None if state is None else state["attributes"].get(name)

    def render(self, template, variables, strict, parse):
        """Template.async_render: any error becomes a TemplateError (here: None, logged)."""
        try:
            text = self.environment(strict).from_string(template).render(**variables).strip()
        except Exception as err:  # noqa: BLE001 - Home Assistant wraps every exception
            LOG.append(f"ERROR TemplateError: {type(err).__name__}: {err}")
            return _SENTINEL
        return parse_result(text) if parse else text

    def available(self, config, variables, strict):
        if "availability" not in config:
            return True
        result = self.render(config["availability"], variables, strict, True)
        return True if result is _SENTINEL else result_as_boolean(result)


def jsonpath(data, path):
    """The JSONPath forms the page uses, `$` then `.key` and `[n]` steps: [match] or False (jsonpath 0.82)."""
    steps = re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]", path[1:])
    if not path.startswith("$") or "".join(f".{k}" if k else f"[{i}]" for k, i in steps) != path[1:]:
        raise NotImplementedError(f"a JSONPath this harness does not read: {path}")
    for key, index in steps:
        if key and isinstance(data, dict) and key in data:
            data = data[key]
        elif index and isinstance(data, list) and int(index) < len(data):
            data = data[int(index)]
        else:
            return False
    return [data]


def json_attributes(value, names, path):
    if not value:
        LOG.append("WARNING Empty reply found when expecting JSON data")
        return {}
    try:
        found = json.loads(value)
        if path is not None:
            found = jsonpath(found, path)
        if isinstance(found, list) and found:
            found = found[0]
        if isinstance(found, dict):
            return {k: found[k] for k in names if k in found}
        LOG.append("WARNING JSON result was not a dictionary or list with 0th element a dictionary")
    except ValueError:
        LOG.append("WARNING REST result could not be parsed as JSON")
    return {}


def slug(name):
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def rest_variables(value):
    variables = {"value": value}
    try:
        variables["value_json"] = json.loads(value)
    except (TypeError, ValueError):
        pass
    return variables


def rest_sensor(world, config, value):
    variables = rest_variables(value)
    if not world.available(config, variables, True):
        return {"state": "unavailable", "attributes": {}}
    attributes = json_attributes(value, config.get("json_attributes", []), config.get("json_attributes_path")) if config.get("json_attributes") else {}
    if value is not None and "value_template" in config:
        value = world.render(config["value_template"], variables, False, False)
        value = None if value is _SENTINEL else value
    if value is None:
        return {"state": "unknown", "attributes": attributes}
    if "unit_of_measurement" in config and not is_number(value):
        LOG.append(f"ERROR ValueError: Sensor has the unit of measurement '{config['unit_of_measurement']}' "
                   f"thus indicating it has a numeric value; however, it has the non-numeric value: '{value}'")
        return {"state": None, "attributes": attributes}
    return {"state": str(value), "attributes": attributes}


def rest_binary_sensor(world, config, value):
    variables = rest_variables(value)
    if not world.available(config, variables, True):
        return {"state": "unavailable", "attributes": {}}
    if value is not None and "value_template" in config:
        value = world.render(config["value_template"], variables, False, False)
        value = False if value is _SENTINEL else value
    try:
        is_on = bool(int(str(value)))
    except ValueError:
        is_on = {"true": True, "on": True, "open": True, "yes": True}.get(str(value).lower(), False)
    return {"state": "on" if is_on else "off", "attributes": {}}


def template_sensor(world, config):
    if not world.available(config, {}, False):
        return {"state": "unavailable", "attributes": {}}
    state = world.render(config["state"], {}, False, False)
    if state is _SENTINEL:
        return {"state": "unavailable", "attributes": {}}
    if "unit_of_measurement" in config and not is_number(state):
        LOG.append(f"ERROR ValueError: non-numeric value '{state}' with unit '{config['unit_of_measurement']}'")
        return {"state": None, "attributes": {}}
    return {"state": str(state), "attributes": {}}


def main():
    job = json.load(sys.stdin)
    world = World(job["now"])
    for entry in job["rest"]:
        value = job["answers"][entry["resource"]]
        for config in entry.get("sensor", []):
            world.states[f"sensor.{slug(config['name'])}"] = rest_sensor(world, config, value)
        for config in entry.get("binary_sensor", []):
            world.states[f"binary_sensor.{slug(config['name'])}"] = rest_binary_sensor(world, config, value)
    for entry in job.get("template", []):
        for config in entry.get("sensor", []):
            world.states[f"sensor.{slug(config['name'])}"] = template_sensor(world, config)
    json.dump({"jinja2": jinja2.__version__, "states": world.states, "log": LOG}, sys.stdout)


if __name__ == "__main__":
    main()
